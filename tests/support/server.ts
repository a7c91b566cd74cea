import { startServer, type RunningServer } from "../../src/server";
import { testConfig } from "./app";
import { createTestDatabase, type TestDatabase } from "./db";
import { fundedDeveloper } from "./developers";
import { callApi } from "./http";

export interface TestServer extends RunningServer {
  testDb: TestDatabase;
  api(method: string, path: string, options?: { body?: unknown; token?: string }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** A real server on port 0 over its own fresh Postgres database (for WebSocket tests). */
export async function startTestServer(label: string, env: Record<string, string> = {}): Promise<TestServer> {
  const testDb = await createTestDatabase(label);
  const server = await startServer(testConfig({ DATABASE_URL: testDb.url, PORT: "0", ...env }));
  const api: TestServer["api"] = (method, path, options = {}) => callApi(server.url, method, path, options);
  return {
    ...server,
    testDb,
    api,
    async close() {
      await server.stop();
      await testDb.drop();
    },
  };
}

/** A developer registered (201) and granted the faucet's credits (200) on this server: support/developers.ts. */
export async function registerWithCredits(server: TestServer, label: string): Promise<{ token: string; developerId: string }> {
  const { token, developerId } = await fundedDeveloper(server.api, { label });
  return { token, developerId };
}

export async function createBot(server: TestServer, token: string, name: string, strategy?: string) {
  const created = await server.api("POST", "/api/bots", { token, body: strategy ? { name, strategy } : { name } });
  if (created.status !== 201) throw new Error(`bot not created: ${JSON.stringify(created.body)}`);
  return created.body as { botId: string; apiKey: string };
}
