import { auditLedger } from "../../src/modules/credits/audit";
import postgres from "postgres";
import { openDatabase } from "../../src/db";
import { TEST_ENV } from "./app";
import { createTestDatabase, type TestDatabase } from "./db";
import { fundedDeveloper } from "./developers";
import { callApi } from "./http";
import { spawnMain, type ChildServer } from "./process";

export const NATS_URL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

/** Several real nodes (child processes of the real entry point) on one Postgres database and one NATS, namespaced by a cluster name of their own. */
export class TestCluster {
  readonly nodes = new Map<string, ChildServer>();
  readonly clusterName: string;
  /** Output of the nodes stopped so far, for a failing test to print. */
  private readonly stoppedLogs: string[] = [];

  private constructor(
    readonly testDb: TestDatabase,
    private readonly env: Record<string, string>,
    label: string,
  ) {
    this.clusterName = `t_${label}_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  }

  static async create(label: string, env: Record<string, string> = {}): Promise<TestCluster> {
    return new TestCluster(await createTestDatabase(label), env, label);
  }

  async start(hostId: string, env: Record<string, string> = {}): Promise<ChildServer> {
    const node = await spawnMain({
      ...TEST_ENV,
      DATABASE_URL: this.testDb.url,
      NATS_URL,
      CLUSTER_NAME: this.clusterName,
      HOST_ID: hostId,
      ...this.env,
      ...env,
    });
    this.nodes.set(hostId, node);
    return node;
  }

  url(hostId: string): string {
    return this.nodes.get(hostId)!.url;
  }

  api(hostId: string, method: string, path: string, options: { body?: unknown; token?: string } = {}) {
    return callApi(this.url(hostId), method, path, options);
  }

  /** SIGKILL: the node dies without a word (its process group, not just a wrapper). */
  kill(hostId: string, signal: NodeJS.Signals | number = "SIGKILL"): void {
    const node = this.nodes.get(hostId);
    if (!node) return;
    try {
      process.kill(node.child.pid, signal);
    } catch {}
    if (signal === "SIGKILL") this.nodes.delete(hostId);
  }

  async stop(hostId: string): Promise<number> {
    const node = this.nodes.get(hostId)!;
    node.child.kill("SIGTERM");
    const code = await node.child.exited;
    this.stoppedLogs.push(`--- ${hostId} (stopped, rc ${code}) ---\n${node.stdout()}${node.stderr()}`);
    this.nodes.delete(hostId);
    return code;
  }

  /** Everything the nodes printed (stopped ones first), for diagnosing a failure. */
  logs(): string {
    const live = [...this.nodes].map(([hostId, node]) => `--- ${hostId} (running) ---\n${node.stdout()}${node.stderr()}`);
    return [...this.stoppedLogs, ...live].join("\n");
  }

  /** A developer registered through `hostId`, with the faucet's credits (support/developers.ts); returns its token. */
  async fundedDeveloper(hostId: string): Promise<string> {
    return (await fundedDeveloper((method, path, options) => this.api(hostId, method, path, options), { via: hostId })).token;
  }

  /** The node that hosts a table now (from the database). */
  async hostOf(tableId: string): Promise<string> {
    const [row] = await this.sql((db) => db`select host_id from tables where id = ${tableId}`);
    return row.host_id as string;
  }

  /** A query on the cluster's database, on a connection of its own. */
  async sql<T>(work: (db: postgres.Sql) => Promise<T>): Promise<T> {
    const db = postgres(this.testDb.url, { max: 1, onnotice: () => {} });
    try {
      return await work(db);
    } finally {
      await db.end();
    }
  }

  async audit() {
    const database = await openDatabase({ databaseUrl: this.testDb.url, maxConnections: 1 });
    try {
      return await auditLedger(database.db);
    } finally {
      await database.close();
    }
  }

  async close(): Promise<void> {
    const running = [...this.nodes.values()].map((node) => node.child.exited);
    for (const hostId of [...this.nodes.keys()]) this.kill(hostId);
    // Dead before their database goes (the drop forces its sessions closed anyway).
    await Promise.all(running);
    await this.testDb.drop();
  }
}

export async function until<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}
