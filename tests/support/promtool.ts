import { existsSync } from "node:fs";

/** Debian's prometheus package (installed by .ci/run). Never skipped: missing, the test fails saying so. */
export const PROMTOOL = process.env.PROMTOOL ?? "/usr/bin/promtool";
export const PROMETHEUS = process.env.PROMETHEUS ?? "/usr/bin/prometheus";

export function requireBinary(path: string): void {
  if (!existsSync(path)) throw new Error(`${path} is missing: install Debian's prometheus package (apt-get install prometheus; .ci/run does it)`);
}

/** Runs promtool with `stdin`; `output` is what it printed (stdout and stderr). */
export async function promtool(args: string[], stdin?: string, cwd?: string): Promise<{ code: number; output: string }> {
  requireBinary(PROMTOOL);
  const child = Bun.spawn([PROMTOOL, ...args], { stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe", cwd });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: (out + err).trim() };
}
