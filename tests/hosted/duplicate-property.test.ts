/**
 * The property of issue 32: on a seeded duplicate match, every message a hosted context receives in
 * copy 2 — its time included — is byte-identical whether copy 1 was played by the same bot, by another
 * bot, or failed on purpose. One bot (tests/hosted/fixtures/copy-variant.ts) is uploaded three times,
 * each version playing copy 1 its own way (the same, raising all it may and filling its log budget,
 * throwing until it is folded) and copy 2 alike, against a calling station; the app's clock is the
 * harness's fixed one. Each context's input is recorded where the host hands it over: the message's
 * JSON, the time it reads (its match clock) and its budget. The only bytes normalised are the ids drawn
 * at random: each pair's table and match ids.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import type { HostedSeat } from "../../src/modules/hosted/sandbox";
import { useHarness } from "../support/app";
import { fixtureSource } from "./duplicate-support";

setDefaultTimeout(180_000);

const h = useHarness("duplicate_property");

interface Recorded {
  botId: string | null;
  /** Every call on the context, in order: the JSON of what it was given. */
  calls: string[];
}

/** Records what every context the app's sandbox opens is given (notify and decide), from now on. */
function recordContexts(): Recorded[] {
  const recorded: Recorded[] = [];
  const sandbox = h.app.services.sandbox;
  const open = sandbox.open.bind(sandbox);
  sandbox.open = async (code, options) => {
    const seat: HostedSeat = await open(code, options);
    const log: Recorded = { botId: options?.botId ?? null, calls: [] };
    recorded.push(log);
    const [notify, decide] = [seat.notify.bind(seat), seat.decide.bind(seat)];
    seat.notify = (message, opts) => {
      log.calls.push(JSON.stringify({ at: opts?.nowMs ?? null, message }));
      return notify(message, opts);
    };
    seat.decide = (request, opts) => {
      log.calls.push(JSON.stringify({ at: opts?.nowMs ?? null, budgetMs: opts?.budgetMs ?? null, request }));
      return decide(request, opts);
    };
    return seat;
  };
  return recorded;
}

async function upload(token: string, botId: string, source: string) {
  const answer = await h.call("PUT", `/api/bots/${botId}/code`, { token, rawBody: source, headers: { "content-type": "text/typescript" } });
  expect(answer.status).toBe(201);
}

test("copy 2's contexts hear the same bytes, times included, whether copy 1 was played the same, otherwise, or failed on purpose", async () => {
  const { token } = await h.fundedDeveloper();
  const bot = async (name: string) => (await h.call("POST", "/api/bots", { token, body: { name } })).body.botId as string;
  const [variant, station] = [await bot("copy-variant"), await bot("station")];
  await upload(token, station, await fixtureSource("calling-station"));
  const recorded = recordContexts();
  const runs: Array<{ copy1: Map<string, string[]>; copy2: Map<string, string[]> }> = [];
  for (const name of ["same", "other", "fail"]) {
    await upload(token, variant, await fixtureSource("copy-variant", { __VARIANT__: name }));
    const pair = (await h.call("POST", "/api/tables", { token, body: { duplicate: true, maxPlayers: 2, maxHands: 30, buyIn: 2000, seed: "property-seed" } })).body;
    const already = recorded.length;
    for (const botId of [variant, station]) expect((await h.call("POST", `/api/tables/${pair.tableId}/join`, { token, body: { botId } })).status).toBe(201);
    await h.app.services.host.settled();
    const [one, two] = [(await h.call("GET", `/api/tables/${pair.tableId}`)).body, (await h.call("GET", `/api/tables/${pair.twinTableId}`)).body];
    expect([one.status, two.status]).toEqual(["finished", "finished"]);
    // The ids drawn at random, and nothing else, are normalised.
    const normal = (text: string) =>
      text.replaceAll(one.tableId, "<copy 1 table>").replaceAll(two.tableId, "<copy 2 table>").replaceAll(one.matchId, "<copy 1 match>").replaceAll(two.matchId, "<copy 2 match>");
    const contexts = recorded.slice(already).filter((r) => r.calls.length > 0);
    const byCopy = (tableId: string) =>
      new Map(contexts.filter((r) => r.calls[0].includes(`"tableId":"${tableId}"`)).map((r) => [r.botId!, r.calls.map(normal)]));
    const copy1 = byCopy(one.tableId);
    const copy2 = byCopy(two.tableId);
    // Each copy opened one context per bot, and a context heard only its own copy's table.
    expect([...copy1.keys()].sort()).toEqual([station, variant].sort());
    expect([...copy2.keys()].sort()).toEqual([station, variant].sort());
    for (const calls of [...copy1.values(), ...copy2.values()]) expect(calls.every((c) => !c.includes(one.tableId) && !c.includes(two.tableId))).toBe(true);
    runs.push({ copy1, copy2 });
  }
  // Copy 1 went three different ways: what the station heard there differs from run to run.
  const stationCopy1 = runs.map((run) => run.copy1.get(station)!.join("\n"));
  expect(new Set(stationCopy1).size).toBe(3);
  // Copy 2: every context, every message, byte for byte.
  let compared = 0;
  for (const botId of [variant, station]) {
    const [same, other, failed] = runs.map((run) => run.copy2.get(botId)!);
    expect(same.length).toBeGreaterThan(30);
    // Each copy is a match of its own from its first message: match_started (never match_resumed), hands from 1.
    expect(JSON.parse(same[0]).message).toMatchObject({ type: "match_started", tableId: "<copy 2 table>", matchId: "<copy 2 match>" });
    expect(same.map((call) => JSON.parse(call)).find((c) => c.message?.type === "hand_started").message.handNumber).toBe(1);
    expect(other).toEqual(same);
    expect(failed).toEqual(same);
    compared += same.length;
  }
  expect(compared).toBeGreaterThan(100);
  // The time a context reads is its match clock: a step per message, never the host's time.
  const times = runs[0].copy2.get(variant)!.map((call) => JSON.parse(call).at as number);
  for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBe(1);
  await h.expectAuditClean();
});
