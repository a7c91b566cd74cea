import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { until } from "../support/nodes";
import { total } from "../support/scrape";
import { registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(30_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer("spectator_limits", { SPECTATORS_PER_TABLE: "3", SPECTATORS_PER_ADDRESS: "4" });
});
afterAll(() => server.close());

interface Watcher {
  socket: WebSocket;
  first: Promise<{ type: string; code?: string }>;
  closed: Promise<number>;
}

function watch(tableId: string): Watcher {
  const socket = new WebSocket(`${server.url.replace("http", "ws")}/api/tables/${tableId}/watch`);
  const first = new Promise<{ type: string; code?: string }>((resolve) => (socket.onmessage = (event) => resolve(JSON.parse(String(event.data)))));
  const closed = new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
  return { socket, first, closed };
}

describe("anonymous spectators are capped", () => {
  test("per table and per address: the next watcher gets TOO_MANY_SPECTATORS and close 4029; a freed place is taken again", async () => {
    const { token } = await registerWithCredits(server, "spectate");
    const table = async () => (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId as string;
    const [a, b] = [await table(), await table()];
    const onA = [watch(a), watch(a), watch(a)];
    for (const w of onA) expect((await w.first).type).toBe("watching");
    const fourth = watch(a);
    expect(await fourth.first).toMatchObject({ type: "error", code: "TOO_MANY_SPECTATORS" });
    expect(await fourth.closed).toBe(4029);
    // The address has 3 sockets: one more (another table) is its last.
    const onB = watch(b);
    expect((await onB.first).type).toBe("watching");
    const fifth = watch(b);
    expect(await fifth.first).toMatchObject({ type: "error", code: "TOO_MANY_SPECTATORS" });
    expect(await fifth.closed).toBe(4029);
    onA[0].socket.close();
    await onA[0].closed;
    // The place is free once the server has counted the socket gone (its gauge and its caps move together).
    const spectatorsCounted = async () => total(await (await fetch(`${server.url}/metrics`)).text(), "poker_websocket_connections", { kind: "spectator" });
    await until(async () => (await spectatorsCounted()) === 3, 10_000, "the closed watcher counted gone");
    const again = watch(a);
    expect((await again.first).type).toBe("watching");
    for (const w of [...onA.slice(1), onB, again]) w.socket.close();
  });
});

describe("frames are capped for every socket", () => {
  const closeCode = (socket: WebSocket) => new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
  const opened = (socket: WebSocket) => new Promise<void>((resolve) => (socket.onopen = () => resolve()));

  test("a spectator's or a bot's frame over 16 KiB closes its socket with 1009; a small one does not", async () => {
    const { token } = await registerWithCredits(server, "frames");
    const tableId = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2 } })).body.tableId as string;
    const bot = (await server.api("POST", "/api/bots", { token, body: { name: "framer" } })).body;
    const spectator = new WebSocket(`${server.url.replace("http", "ws")}/api/tables/${tableId}/watch`);
    const botSocket = new WebSocket(`${server.url.replace("http", "ws")}/api/bots/connect?apiKey=${bot.apiKey}`);
    await Promise.all([opened(spectator), opened(botSocket)]);
    const [spectatorClosed, botClosed] = [closeCode(spectator), closeCode(botSocket)];
    // A small frame, then something the server answers on the same socket: the answer comes only if
    // the small frame was read and the socket left open (frames are read in order).
    const botPong = new Promise<string>((resolve) => (botSocket.onmessage = (event) => JSON.parse(String(event.data)).type === "pong" && resolve("pong")));
    const spectatorPong = new Promise<string>((resolve) => spectator.addEventListener("pong", () => resolve("pong")));
    spectator.send("x".repeat(1_000));
    (spectator as WebSocket & { ping(data?: string): void }).ping("still open?");
    botSocket.send(JSON.stringify({ type: "ping" }));
    expect(await Promise.all([spectatorPong, botPong])).toEqual(["pong", "pong"]);
    expect(spectator.readyState).toBe(WebSocket.OPEN);
    expect(botSocket.readyState).toBe(WebSocket.OPEN);
    spectator.send("x".repeat(64 * 1024));
    botSocket.send(JSON.stringify({ type: "ping", pad: "x".repeat(64 * 1024) }));
    expect(await spectatorClosed).toBe(1009);
    expect(await botClosed).toBe(1009);
  });
});
