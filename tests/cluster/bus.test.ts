import { afterAll, describe, expect, test } from "bun:test";
import { BusTimeoutError, NoResponderError, type Bus, type Json } from "../../src/lib/bus/bus";
import { LocalBus } from "../../src/lib/bus/local-bus";
import { NatsBus } from "../../src/lib/bus/nats-bus";
import { NATS_URL, until } from "../support/nodes";

// One contract, both implementations: the in-process bus must behave as NATS does.
const buses: Array<[string, () => Promise<Bus>]> = [
  ["in-process", async () => new LocalBus()],
  ["NATS", () => NatsBus.connect(NATS_URL, "bus contract test", () => {})],
];
const opened: Bus[] = [];
afterAll(() => Promise.all(opened.map((bus) => bus.close())));

for (const [name, open] of buses) {
  describe(`the ${name} bus`, () => {
    const prefix = `t_bus_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
    const bus = () => open().then((b) => (opened.push(b), b));

    test("publish reaches every subscriber of the subject and of a matching wildcard, as a copy", async () => {
      const b = await bus();
      const got: Array<[string, Json]> = [];
      const exact = b.subscribe(`${prefix}.bot.b1.out`, (m) => void got.push(["exact", m]));
      const wildcard = b.subscribe(`${prefix}.bot.*.out`, (m) => void got.push(["wildcard", m]));
      b.subscribe(`${prefix}.bot.b2.out`, (m) => void got.push(["other", m]));
      // No wait needed: a connection's subscriptions reach the server before its later publishes (NATS keeps their order).
      const sent = { n: 1, nested: { list: [1, 2] } };
      b.publish(`${prefix}.bot.b1.out`, sent);
      await until(async () => got.length === 2, 5_000, "both deliveries");
      expect(got.map(([who]) => who).sort()).toEqual(["exact", "wildcard"]);
      for (const [, message] of got) {
        expect(message).toEqual(sent);
        expect(message).not.toBe(sent);
      }
      exact.unsubscribe();
      wildcard.unsubscribe();
      b.publish(`${prefix}.bot.b1.out`, { n: 2 });
      // A marker after it, to a subject still subscribed: deliveries keep their order, so once the
      // marker is here, { n: 2 } would have been too had anyone still listened.
      b.publish(`${prefix}.bot.b2.out`, { marker: true });
      await until(async () => got.some(([who]) => who === "other"), 5_000, "the marker");
      expect(got.map(([who, message]) => [who, message])).toEqual([
        ...got.slice(0, 2).map(([who]) => [who, sent]),
        ["other", { marker: true }],
      ]);
    });

    test("request gets the handler's (async) reply; nobody subscribed is NoResponderError; no reply in time is BusTimeoutError", async () => {
      const b = await bus();
      b.subscribe(`${prefix}.table.t1.cmd`, async (m) => ({ ok: { doubled: Number(m.n) * 2 } }));
      b.subscribe(`${prefix}.table.t2.cmd`, () => new Promise(() => {}));
      expect(await b.request(`${prefix}.table.t1.cmd`, { n: 21 })).toEqual({ ok: { doubled: 42 } });
      await expect(b.request(`${prefix}.table.none.cmd`, {}, 1_000)).rejects.toBeInstanceOf(NoResponderError);
      await expect(b.request(`${prefix}.table.t2.cmd`, {}, 200)).rejects.toBeInstanceOf(BusTimeoutError);
    });
  });
}
