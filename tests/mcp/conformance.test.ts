import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerWithCredits, startTestServer, type TestServer } from "../support/server";

setDefaultTimeout(120_000);

/**
 * The official conformance suite (@modelcontextprotocol/conformance) against /mcp. It speaks as an
 * anonymous client, and /mcp needs a developer's token: a loopback proxy adds the header and
 * forwards everything else as it came (Host and Origin included, for the DNS rebinding scenario).
 * Its CLI needs Node 22 (fs.globSync); under Bun it runs as it is.
 */
const CONFORMANCE_CLI = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** The scenarios that apply to a server with these tools; docs/INTEROP.md says why the others do not. */
const APPLICABLE = ["server-initialize", "ping", "tools-list", "resources-list", "dns-rebinding-protection"];

let server: TestServer;
let proxy: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  server = await startTestServer("mcp_conformance");
  const dev = await registerWithCredits(server, "conformance");
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${dev.token}`);
      const target = new URL(new URL(request.url).pathname, server.url);
      // Bun's fetch sets Host from the URL: the scenario's own Host travels as the one header fetch keeps, Origin.
      return fetch(target, { method: request.method, headers, body: request.method === "GET" ? undefined : await request.arrayBuffer(), redirect: "manual" });
    },
  });
});
afterAll(async () => {
  proxy?.stop(true);
  await server.close();
});

async function runScenario(scenario: string) {
  const outputDir = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  const child = Bun.spawn(["bun", CONFORMANCE_CLI, "server", "--url", `http://127.0.0.1:${proxy.port}/mcp`, "--scenario", scenario, "-o", outputDir], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const files = readdirSync(outputDir, { recursive: true }).map(String).filter((file) => file.endsWith("checks.json"));
  if (files.length !== 1) throw new Error(`no checks.json for ${scenario}: ${stdout}\n${stderr}`);
  return JSON.parse(readFileSync(join(outputDir, files[0]!), "utf8")) as { id: string; status: string; errorMessage?: string }[];
}

describe("the MCP conformance suite against /mcp", () => {
  for (const scenario of APPLICABLE) {
    test(scenario, async () => {
      const checks = await runScenario(scenario);
      const judged = checks.filter((check) => check.status !== "INFO");
      expect(judged.length).toBeGreaterThan(0);
      expect(judged.filter((check) => check.status === "FAILURE")).toEqual([]);
    });
  }
});
