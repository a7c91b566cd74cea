import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../support/process";
import { createBot, registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(120_000);

// The SDK as a user outside this repository gets it: `npm pack`, installed into a fresh project.
let server: TestServer;
let project: string;
beforeAll(async () => {
  server = await startTestServer("sdk_package");
  project = mkdtempSync(join(tmpdir(), "poker-sdk-user-"));
});
afterAll(async () => {
  await server.close();
  rmSync(project, { recursive: true, force: true });
});

async function run(command: string[], cwd: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${stdout}\n${stderr}`);
  return stdout;
}

test("npm pack of @poker-bots/sdk, @poker-bots/protocol and @poker-bots/core installs in a fresh project outside the repo, and a bot written there plays a match", async () => {
  // TypeBox (the protocol's one dependency) is packed from the installed copy: the install below is offline, with no registry.
  for (const dir of ["packages/poker-core", "packages/protocol", "packages/sdk", "node_modules/@sinclair/typebox"]) {
    await run(["npm", "pack", "--silent", "--pack-destination", project], join(ROOT, dir));
  }
  const tarballs = readdirSync(project).filter((f) => f.endsWith(".tgz")).sort();
  expect(tarballs).toEqual(["poker-bots-core-0.1.0.tgz", "poker-bots-protocol-0.1.0.tgz", "poker-bots-sdk-0.1.0.tgz", "sinclair-typebox-0.34.52.tgz"]);
  // Nothing of the repository may be needed: the packed files import only each other.
  for (const file of tarballs.filter((f) => f.startsWith("poker-bots-"))) expect(await run(["tar", "-xOzf", join(project, file)], project)).not.toContain("../../../src");
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({
      name: "my-bot",
      private: true,
      type: "module",
      dependencies: Object.fromEntries(tarballs.map((file) => [file.startsWith("sinclair-") ? "@sinclair/typebox" : `@poker-bots/${/^poker-bots-(\w+)-/.exec(file)![1]}`, `file:./${file}`])),
    }),
  );
  await run(["npm", "install", "--no-audit", "--no-fund", "--offline"], project);
  writeFileSync(
    join(project, "bot.ts"),
    `import { call, check, defineBot, handStrength, runBot } from "@poker-bots/sdk";
const bot = defineBot({ name: "outside", decide: (s) => { handStrength(s); return s.legal.has("check") ? check() : call(); } });
const ended = await runBot(bot);
console.log("RESULT " + JSON.stringify({ type: ended?.type, hands: ended?.handsPlayed }));
`,
  );

  const { token } = await registerWithCredits(server, "sdk-package");
  const mine = await createBot(server, token, "outside");
  const house = await createBot(server, token, "house", "caller");
  const tableId = (await server.api("POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 5, smallBlind: 1, bigBlind: 2 } })).body.tableId;
  for (const bot of [mine, house]) expect((await server.api("POST", `/api/tables/${tableId}/join`, { token, body: { botId: bot.botId } })).status).toBe(201);
  const output = await run(["bun", "bot.ts", "--key", mine.apiKey, "--server", server.url, "--once", "--log-level", "error"], project, { POKER_CONFIG: join(project, "none.json") });
  const result = JSON.parse(/RESULT (.*)/.exec(output)![1]);
  expect(result.type).toBe("match_ended");
  expect(result.hands).toBeGreaterThan(0);
  const stats = (await server.api("GET", `/api/stats/${mine.botId}`)).body;
  expect(stats.matchesPlayed).toBe(1);
});
