import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

export interface ChildServer {
  child: ReturnType<typeof Bun.spawn>;
  url: string;
  /** What the child wrote so far (bounded to its last 100 KB or so). */
  stdout(): string;
  stderr(): string;
  /** Resolves once both pipes reached their end: the child, and whatever it started, wrote their last line. */
  outputEnded: Promise<void>;
}

/**
 * Spawns the real entry point (`bun src/main.ts`) with `env` on top of this process's, and waits
 * for its "listening on URL" line. Both pipes are drained for as long as the child lives.
 */
export async function spawnMain(env: Record<string, string>, timeoutMs = 30_000, command = ["bun", "src/main.ts"]): Promise<ChildServer> {
  const child = Bun.spawn(command, { cwd: ROOT, env: { ...process.env, PORT: "0", ...env }, stdout: "pipe", stderr: "pipe" });
  const captured = { out: "", err: "" };
  const keep = (key: "out" | "err", text: string) => {
    captured[key] += text;
    if (captured[key].length > 200_000) captured[key] = captured[key].slice(-100_000);
  };
  const pump = async (stream: ReadableStream<Uint8Array>, key: "out" | "err") => {
    // One decoder per pipe: a character split across two reads of one pipe is joined, never mixed with the other's.
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      keep(key, decoder.decode(value, { stream: true }));
    }
  };
  const stdoutDone = pump(child.stdout as ReadableStream<Uint8Array>, "out").catch(() => {});
  const stderrDone = pump(child.stderr as ReadableStream<Uint8Array>, "err").catch(() => {});
  const deadline = Date.now() + timeoutMs;
  let listening: RegExpExecArray | null = null;
  while (!(listening = /listening on (\S+)/.exec(captured.out))) {
    if (Date.now() > deadline) throw new Error(`server did not start: ${captured.out} ${captured.err}`);
    const ended = await Promise.race([stdoutDone.then(() => true), Bun.sleep(5).then(() => false)]);
    if (ended && !/listening on (\S+)/.test(captured.out)) throw new Error(`server exited early: ${captured.out} ${captured.err}`);
  }
  return { child, url: listening[1], stdout: () => captured.out, stderr: () => captured.err, outputEnded: Promise.all([stdoutDone, stderrDone]).then(() => {}) };
}
