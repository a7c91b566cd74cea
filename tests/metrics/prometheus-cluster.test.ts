import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TestCluster, until } from "../support/nodes";
import { PROMETHEUS, requireBinary } from "../support/promtool";

// A real Prometheus (Debian's) scraping three real nodes on one Postgres and one NATS.
setDefaultTimeout(120_000);

const TOKEN = `metrics-${Math.random().toString(36).slice(2)}`;
const NODES = ["prom_a", "prom_b", "prom_c"];
let cluster: TestCluster;
let prometheus: ReturnType<typeof Bun.spawn> | undefined;
let prometheusOutput = "";
let storage: string;
let api: string;

/** A loopback port the OS picked (released at once for Prometheus to bind). */
async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

async function query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await response.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
  if (body.status !== "success") throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
  return body.data.result;
}

const hostPort = (url: string) => new URL(url).host;

beforeAll(async () => {
  requireBinary(PROMETHEUS);
  cluster = await TestCluster.create("prometheus", { METRICS_TOKEN: TOKEN });
  for (const node of NODES) await cluster.start(node);
  storage = mkdtempSync(join(tmpdir(), "poker-prometheus-"));
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "900ms", evaluation_interval: "1s" },
    scrape_configs: [
      {
        job_name: "poker",
        authorization: { type: "Bearer", credentials: TOKEN },
        static_configs: [{ targets: NODES.map((node) => hostPort(cluster.url(node))) }],
      },
    ],
  };
  // JSON is YAML: no YAML writer needed.
  writeFileSync(join(storage, "prometheus.yml"), JSON.stringify(config));
  const port = await freePort();
  api = `http://127.0.0.1:${port}`;
  prometheus = Bun.spawn(
    [PROMETHEUS, `--config.file=${join(storage, "prometheus.yml")}`, `--storage.tsdb.path=${join(storage, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { stdout: "pipe", stderr: "pipe" },
  );
  void new Response(prometheus.stderr as ReadableStream).text().then((text) => (prometheusOutput += text));
  await until(async () => (await fetch(`${api}/-/ready`).catch(() => null))?.ok, 30_000, `Prometheus ready on ${api}`);
});

afterAll(async () => {
  prometheus?.kill("SIGTERM");
  await prometheus?.exited;
  rmSync(storage, { recursive: true, force: true });
  await cluster.close();
});

describe("Prometheus scraping a three-node cluster", () => {
  test("all three are up; hands dealt across them show as a positive rate; a node killed shows up == 0", async () => {
    try {
      // Every node scraped before play starts, so the counters' increase falls between samples.
      await until(async () => (await query('count(up{job="poker"} == 1)'))[0]?.value[1] === "3", 30_000, "three targets up");

      // Built-in matches on each node (each table is hosted where it was created).
      for (const node of NODES) {
        const token = await cluster.fundedDeveloper(node);
        for (let t = 0; t < 2; t++) {
          const table = await cluster.api(node, "POST", "/api/tables", { token, body: { maxPlayers: 2, maxHands: 200, buyIn: 500 } });
          expect(table.status).toBe(201);
          for (const strategy of ["caller", "raiser"]) {
            const bot = await cluster.api(node, "POST", "/api/bots", { token, body: { name: `${strategy}_${t}`, strategy } });
            expect((await cluster.api(node, "POST", `/api/tables/${table.body.tableId}/join`, { token, body: { botId: bot.body.botId } })).status).toBe(201);
          }
        }
      }

      const rate = await until(async () => {
        const [result] = await query("sum(rate(poker_hands_dealt_total[1m])) > 0");
        return result ? Number(result.value[1]) : null;
      }, 30_000, "a positive rate of hands");
      expect(rate).toBeGreaterThan(0);
      // The hands came from more than one node, and every series is labelled with its node.
      const perNode = await until(async () => {
        const result = await query("sum by (node) (increase(poker_hands_dealt_total[1m])) > 0");
        return result.length === NODES.length ? result : null;
      }, 30_000, "hands on every node");
      expect(perNode.map((r) => r.metric.node).sort()).toEqual(NODES);
      // Every start, once the last scrape of each node has it.
      const started = await until(async () => {
        const [result] = await query("sum(poker_matches_started_total)");
        return result && Number(result.value[1]) === 6 ? result : null;
      }, 20_000, "six matches started");
      expect(Number(started.value[1])).toBe(6);

      const killed = hostPort(cluster.url("prom_c"));
      cluster.kill("prom_c");
      const down = await until(async () => (await query(`up{job="poker", instance="${killed}"} == 0`)).length === 1, 20_000, "the killed node's up == 0");
      expect(down).toBe(true);
      expect((await query('count(up{job="poker"} == 1)'))[0].value[1]).toBe("2");
    } catch (error) {
      console.error(`prometheus:\n${prometheusOutput}\nnodes:\n${cluster.logs().slice(-5_000)}`);
      throw error;
    }
  });
});
