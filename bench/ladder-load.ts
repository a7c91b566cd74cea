/**
 * The separate load process of `bun run bench:ladder` (loopback only, bounded): the remote bots.
 * `bun bench/ladder-load.ts <plan-file>`; the plan is {urls: [node http urls], bots: [{botId,
 * apiKey, token, node}]}. Connects each bot to urls[node] and answers every action_request at once
 * (check, else call). Prints {"ready":n} once every socket is welcomed. On the stdin line "enter"
 * it enters every bot in the heads-up ladder (POST /api/ladder/entries through the next node),
 * noting Date.now() just before each call, and prints {"entered":n}. A socket that closes (its
 * node killed) reconnects to the next node that answers. When stdin closes it prints, for each bot,
 * its entry time and every match_started / match_resumed / match_ended (Date.now()) as one JSON
 * line, and exits.
 */
interface PlanBot {
  botId: string;
  apiKey: string;
  token: string;
  node: number;
}
const [planFile] = process.argv.slice(2);
const plan: { urls: string[]; bots: PlanBot[] } = await Bun.file(planFile!).json();
if (!plan.urls.every((u) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(u))) throw new Error("loopback URLs only");

type BotEvent = [type: "started" | "resumed" | "ended" | "disconnected" | "connected", at: number, tableId?: string];
const records = plan.bots.map((b) => ({ botId: b.botId, enteredAt: 0, events: [] as BotEvent[] }));
let stopping = false;
let welcomed = 0;
const ready = Promise.withResolvers<void>();
const sockets: Array<WebSocket | null> = plan.bots.map(() => null);

function connect(i: number, node: number): void {
  const bot = plan.bots[i]!;
  const record = records[i]!;
  const socket = new WebSocket(`${plan.urls[node]!.replace(/^http/, "ws")}/api/bots/connect?apiKey=${encodeURIComponent(bot.apiKey)}`);
  sockets[i] = socket;
  let opened = false;
  socket.onopen = () => {
    opened = true;
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data));
    const now = Date.now();
    switch (message.type) {
      case "welcome":
        if (++welcomed === plan.bots.length) ready.resolve();
        if (record.events.length > 0) record.events.push(["connected", now]);
        return;
      case "match_started":
        record.events.push(["started", now, message.tableId]);
        return;
      case "match_resumed":
        record.events.push(["resumed", now, message.tableId]);
        return;
      case "match_ended":
        record.events.push(["ended", now, message.tableId]);
        return;
      case "action_request":
        socket.send(JSON.stringify({ type: "action", requestId: message.requestId, action: message.legalActions.includes("check") ? "check" : "call" }));
    }
  };
  socket.onclose = () => {
    if (stopping) return;
    if (opened) record.events.push(["disconnected", Date.now()]);
    // Its node is gone (or refused): the next node, a moment later.
    setTimeout(() => connect(i, (node + 1) % plan.urls.length), opened ? 200 : 500);
  };
}

plan.bots.forEach((b, i) => connect(i, b.node));
await Promise.race([ready.promise, Bun.sleep(60_000)]);
console.log(JSON.stringify({ ready: welcomed }));

async function enterAll(): Promise<number> {
  let entered = 0;
  await Promise.all(
    plan.bots.map(async (bot, i) => {
      const url = plan.urls[(bot.node + 1) % plan.urls.length];
      records[i]!.enteredAt = Date.now();
      const response = await fetch(`${url}/api/ladder/entries`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bot.token}` },
        body: JSON.stringify({ botId: bot.botId }),
      });
      if (response.status === 201) entered++;
      else console.error(`entry of ${bot.botId}: ${response.status} ${await response.text()}`);
    }),
  );
  return entered;
}

let buffer = "";
for await (const chunk of Bun.stdin.stream()) {
  buffer += new TextDecoder().decode(chunk);
  for (let n = buffer.indexOf("\n"); n >= 0; n = buffer.indexOf("\n")) {
    const line = buffer.slice(0, n).trim();
    buffer = buffer.slice(n + 1);
    if (line === "enter") console.log(JSON.stringify({ entered: await enterAll() }));
  }
}
stopping = true;
console.log(JSON.stringify({ records }));
for (const socket of sockets) socket?.close();
process.exit(0);
export {};
