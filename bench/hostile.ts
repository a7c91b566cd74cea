/**
 * Hostile requests against the real entry point on Postgres (issue 16): the time to answer a
 * 60 KB deeply nested JSON body, and the slowest /health answered while it is being handled;
 * in development and production mode. Prints one line per case and a JSON line last. Figures only.
 */
import { CHEAP_PASSWORDS, freshDatabase, spawnServer, whileProbingHealth } from "./support";

const NESTED = "[".repeat(30_000) + "]".repeat(30_000);

async function nestedBody(nodeEnv: string, databaseUrl: string) {
  const server = await spawnServer({ ...CHEAP_PASSWORDS, DATABASE_URL: databaseUrl, NODE_ENV: nodeEnv, JWT_SECRET: "bench-secret", DECK_SEAL_KEY: "ab".repeat(32) });
  try {
    const { result, ms, slowestHealthMs } = await whileProbingHealth(server.url, async () => {
      const response = await fetch(`${server.url}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: NESTED });
      return { status: response.status, responseBytes: (await response.text()).length };
    });
    return { ...result, ms, slowestHealthMs };
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const database = await freshDatabase(`bench_hostile_${process.pid}`);
  const figures: Record<string, number> = {};
  for (const mode of ["development", "production"]) {
    const result = await nestedBody(mode, database.url);
    console.log(`nested 60 KB body, ${mode}: ${result.status} in ${result.ms} ms, response ${result.responseBytes} bytes, slowest /health meanwhile ${result.slowestHealthMs} ms`);
    figures[`${mode}Status`] = result.status;
    figures[`${mode}Ms`] = result.ms;
    figures[`${mode}SlowestHealthMs`] = result.slowestHealthMs;
  }
  await database.drop();
  console.log(JSON.stringify(figures));
}
