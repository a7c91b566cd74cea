import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { TestCluster, until } from "../support/nodes";
import { WsBot } from "../support/ws-bot";

// Two real nodes: remote bots on one, their tables hosted on the other (answers relayed over NATS),
// a key rotated mid-run, an api key in a query string, every request logged (LOG_LEVEL=debug).
// Then every line the nodes wrote is scanned for every key, token, password and hole card handed out.
setDefaultTimeout(120_000);

let cluster: TestCluster;
const secrets = new Set<string>();
const holeCards: string[][] = [];
let logs = "";

beforeAll(async () => {
  cluster = await TestCluster.create("log_secrets", { LOG_LEVEL: "debug", LOG_FORMAT: "json" });
  await cluster.start("logs_a");
  await cluster.start("logs_b");
  const password = "a long password";
  secrets.add(password);
  const tokens: string[] = [];
  for (let d = 0; d < 2; d++) {
    const token = await cluster.fundedDeveloper("logs_a");
    tokens.push(token);
    secrets.add(token);
  }
  const bots: WsBot[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await cluster.api("logs_a", "POST", "/api/bots", { token: tokens[i], body: { name: `remote_${i}` } });
    expect(created.status).toBe(201);
    secrets.add(created.body.apiKey);
    bots.push(await new WsBot(cluster.url("logs_a"), created.body.apiKey, undefined, i === 0 ? "query" : "header").connect());
    (bots[i] as WsBot & { botId: string }).botId = created.body.botId;
  }
  for (let round = 0; round < 2; round++) {
    const table = await cluster.api("logs_b", "POST", "/api/tables", { token: tokens[0], body: { maxPlayers: 2, maxHands: 25, buyIn: 500 } });
    expect(table.status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const joined = await cluster.api("logs_b", "POST", `/api/tables/${table.body.tableId}/join`, { token: tokens[i], body: { botId: (bots[i] as WsBot & { botId: string }).botId } });
      expect(joined.status).toBe(201);
    }
    await bots[0].next((m) => m.type === "match_ended" && m.tableId === table.body.tableId, 60_000);
  }
  // A rotated key: the old one is refused from now on, the new one is a secret too.
  const rotated = await cluster.api("logs_a", "POST", `/api/bots/${(bots[1] as WsBot & { botId: string }).botId}/rotate-key`, { token: tokens[1] });
  expect(rotated.status).toBe(200);
  secrets.add(rotated.body.apiKey);
  await until(async () => bots[1].closed, 10_000, "the old key's socket closed");
  // A wrong key in a query string.
  const wrongKey = new WebSocket(`${cluster.url("logs_a").replace(/^http/, "ws")}/api/bots/connect?apiKey=pbk_not_a_real_key_0123456789`);
  await new Promise((resolve) => {
    wrongKey.onclose = resolve;
    wrongKey.onerror = resolve;
  });
  for (const bot of bots) {
    for (const m of bot.messages) if (Array.isArray(m.holeCards)) holeCards.push(m.holeCards);
    bot.disconnect();
  }
  await cluster.stop("logs_a");
  await cluster.stop("logs_b");
  logs = cluster.logs();
});
afterAll(() => cluster.close());

describe("the logs of a run with remote bots across two nodes", () => {
  test("are structured: every event line on stderr is JSON with level, time, node and msg; requests carry their id", () => {
    const events = logs
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(events.length).toBeGreaterThan(12);
    for (const event of events) {
      expect(typeof event.level).toBe("string");
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
      expect(["logs_a", "logs_b"]).toContain(event.node);
      expect(typeof event.msg).toBe("string");
    }
    const requests = events.filter((e) => e.msg === "request");
    expect(requests.length).toBeGreaterThan(10);
    for (const r of requests) {
      expect(r.requestId).toMatch(/^[A-Za-z0-9._-]+$/);
      expect(r.status).toBeGreaterThanOrEqual(100);
    }
    expect(requests.some((r) => r.route === "/api/bots/connect")).toBe(true);
  });

  test("carry no api key, token, password or hole card handed out", () => {
    expect(secrets.size).toBeGreaterThanOrEqual(6);
    expect(holeCards.length).toBeGreaterThan(20);
    const leaked = [...secrets].filter((secret) => logs.includes(secret));
    // Key prefixes too: a truncated key is still a leak worth knowing about.
    secrets.add("pbk_not_a_real_key_0123456789");
    for (const secret of secrets) if (secret.startsWith("pbk_") && logs.includes(secret.slice(0, 16))) leaked.push(`${secret.slice(0, 16)}…`);
    expect(leaked).toEqual([]);
    // "4d6c" alone is also four hex digits, found by chance inside ids and hashes: the run-together
    // form counts only standing alone (not inside a longer run of letters and digits).
    const alone = (text: string) => new RegExp(`(?<![0-9A-Za-z])${text}(?![0-9A-Za-z])`).test(logs);
    const cardsSeen = holeCards.filter(([a, b]) => [`"${a}","${b}"`, `\\"${a}\\",\\"${b}\\"`, `${a} ${b}`, `${a}, ${b}`].some((form) => logs.includes(form)) || alone(`${a}${b}`));
    expect(cardsSeen).toEqual([]);
  });
});
