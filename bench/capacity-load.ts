export {};
/**
 * The separate load process of `bun run bench:capacity` (loopback only, bounded):
 * `bun bench/capacity-load.ts <ws-url> <keys-file>` opens one bot WebSocket per api key (in
 * waves, so the kernel's accept queue is not flooded), counts `welcome` messages, prints one JSON
 * line when every socket is welcomed (or the deadline passes), holds the sockets until its stdin
 * closes, and exits.
 */
const [wsUrl, keysFile] = process.argv.slice(2);
if (!wsUrl || !/^ws:\/\/(127\.0\.0\.1|localhost)[:/]/.test(wsUrl)) throw new Error("a loopback ws:// URL is required");
const keys: string[] = await Bun.file(keysFile!).json();
const WAVE = 500;
const DEADLINE_MS = 30_000;

const sockets: WebSocket[] = [];
let welcomed = 0, failed = 0;
const started = performance.now();
let lastWelcomeAt = started;
const allDone = Promise.withResolvers<void>();
const settle = () => {
  if (welcomed + failed === keys.length) allDone.resolve();
};
for (let i = 0; i < keys.length; i += WAVE) {
  const wave = keys.slice(i, i + WAVE).map(
    (key) =>
      new Promise<void>((resolve) => {
        const socket = new WebSocket(`${wsUrl}?apiKey=${key}`);
        sockets.push(socket);
        let counted = false;
        socket.onmessage = (event) => {
          if (!counted && String(event.data).includes('"welcome"')) {
            counted = true;
            welcomed++;
            lastWelcomeAt = performance.now();
            settle();
            resolve();
          }
        };
        socket.onerror = socket.onclose = () => {
          if (!counted) {
            counted = true;
            failed++;
            settle();
            resolve();
          }
        };
      }),
  );
  await Promise.all(wave);
}
await Promise.race([allDone.promise, Bun.sleep(DEADLINE_MS)]);
console.log(JSON.stringify({ sockets: keys.length, welcomed, failed, msToLastWelcome: Math.round(lastWelcomeAt - started) }));
// Hold every socket open until the parent has measured the server, then leave.
for await (const _ of Bun.stdin.stream()) {
}
for (const socket of sockets) socket.close();
process.exit(0);
