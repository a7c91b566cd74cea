export {};
/**
 * The separate load process of `bun run bench:relay` (loopback only, bounded):
 * `bun bench/relay-load.ts <ws-url> <keys-file>` connects one remote bot per api key and answers
 * every action_request at once (check, else call). Prints `{"ready":n}` when every socket is
 * welcomed; when its stdin closes, prints the client-side round trips (answer sent → that table's
 * next request received) as one JSON line and exits.
 */
const [wsUrl, keysFile] = process.argv.slice(2);
if (!wsUrl || !/^ws:\/\/(127\.0\.0\.1|localhost)[:/]/.test(wsUrl)) throw new Error("a loopback ws:// URL is required");
const keys: string[] = await Bun.file(keysFile!).json();

const roundTrips: number[] = [];
const answeredAt = new Map<string, number>();
const sockets: WebSocket[] = [];
let welcomed = 0;
const ready = Promise.withResolvers<void>();
for (const key of keys) {
  const socket = new WebSocket(`${wsUrl}?apiKey=${key}`);
  sockets.push(socket);
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    if (message.type === "welcome" && ++welcomed === keys.length) ready.resolve();
    if (message.type !== "action_request") return;
    const sent = answeredAt.get(message.tableId);
    if (sent !== undefined) roundTrips.push(performance.now() - sent);
    const action = message.legalActions.includes("check") ? "check" : "call";
    socket.send(JSON.stringify({ type: "action", requestId: message.requestId, action }));
    answeredAt.set(message.tableId, performance.now());
  };
}
await Promise.race([ready.promise, Bun.sleep(30_000)]);
console.log(JSON.stringify({ ready: welcomed }));
for await (const _ of Bun.stdin.stream()) {
}
roundTrips.sort((a, b) => a - b);
const at = (p: number) => roundTrips[Math.min(roundTrips.length - 1, Math.ceil((p / 100) * roundTrips.length) - 1)] ?? null;
console.log(JSON.stringify({ roundTrips: roundTrips.length, p50: at(50), p99: at(99) }));
for (const socket of sockets) socket.close();
process.exit(0);
