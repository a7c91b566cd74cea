import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

export class DirectoryInUseError extends Error {}

/** Whether a process with this pid exists (one of another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * One process per embedded (PGlite) database directory: a second server, or `bun run audit` while
 * the server runs, would open the same files and corrupt them or read a half-written state. The
 * lock is a file beside the directory holding the owner's pid, created exclusively; a lock whose
 * process is gone (a crash, SIGKILL) is stale and taken over. Returns the release function.
 */
export function lockDirectory(dir: string): () => void {
  const path = `${resolve(dir)}.lock`;
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: "wx" });
      return () => {
        try {
          if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path);
        } catch {}
      };
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const holder = Number(readFileSync(path, "utf8").trim());
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      throw new DirectoryInUseError(
        `the embedded database ${resolve(dir)} is in use by process ${holder} (one process per PGlite directory: stop it first, or give this one another PGLITE_DIR)`,
      );
    }
    try {
      unlinkSync(path);
    } catch {}
  }
  throw new DirectoryInUseError(`could not lock the embedded database ${resolve(dir)} (${path})`);
}
