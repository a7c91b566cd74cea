/** Shared by the hosted-bot tests: bundling a fixture, and a tick counter on the test's own event loop. */
import { bundleBot } from "../../src/modules/hosted/sandbox/index.ts";

export const FIXTURES = new URL("./fixtures/", import.meta.url);

export async function bundleFixture(name: string): Promise<string> {
  const built = await bundleBot(await Bun.file(new URL(`${name}.ts`, FIXTURES)).text());
  if (!built.ok) throw new Error(`${name} does not build: ${JSON.stringify(built.errors)}`);
  return built.code;
}

export async function bundleFile(path: string): Promise<string> {
  const built = await bundleBot(await Bun.file(path).text());
  if (!built.ok) throw new Error(`${path} does not build: ${JSON.stringify(built.errors)}`);
  return built.code;
}

/** Counts 5 ms ticks of this thread's event loop while `work` runs: a blocked loop counts none. */
export async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = performance.now();
  try {
    const result = await work();
    return { result, ticks, ms: performance.now() - started };
  } finally {
    clearInterval(timer);
  }
}
