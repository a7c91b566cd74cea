/**
 * A pre-migrated PGlite data directory, built once at `bun install` (postinstall) and used by a
 * first start. Creating a PGlite database runs initdb in WebAssembly (3–4 s in memory, more than
 * 10 s straight onto disk); having PGlite load the same files from a tarball still takes about
 * 1.5 s, as every file goes through its WebAssembly file system. A plain copy of the directory
 * (about a thousand files, 40 MB) takes 0.05 s on an idle disk but up to a second on a busy one,
 * so spare copies are kept ready beside the snapshot: a first start renames one into place (no
 * file is written then) and a detached helper process makes the next one. Without a spare (another
 * file system, or two first starts at once), the first start copies the snapshot. Either way
 * PGlite then opens the directory as on any restart.
 *
 * The snapshot is keyed by the migrations it holds and by the PGlite version that wrote it, so a
 * changed migration or an upgraded PGlite never loads a stale database: without a matching
 * snapshot, the first start builds it (once, a few seconds) and copies it. It holds the schema
 * only, no secrets and no rows (the JWT secret is generated at start), and it was shut down
 * cleanly, so a start from it needs no crash recovery.
 */
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { isAlive, lockDirectory } from "./directory-lock";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));
const CACHE_DIR = fileURLToPath(new URL("../../node_modules/.cache/poker-bot-service", import.meta.url));
/** Bumped whenever the way a snapshot is built changes. */
const SNAPSHOT_FORMAT = "directory-2";
/** Written first and removed last by a copy into a directory: present, the copy was interrupted. */
const INCOMPLETE_MARKER = ".snapshot-copy-incomplete";

function pgliteVersion(): string {
  const packageJson = fileURLToPath(new URL("../package.json", import.meta.resolve("@electric-sql/pglite")));
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
}

/** SHA-256 over every migration file (names and contents) and the PGlite version: the snapshot's key. */
function snapshotKey(): string {
  const hash = new Bun.CryptoHasher("sha256");
  hash.update(`${SNAPSHOT_FORMAT} pglite ${pgliteVersion()}`);
  const files = [...readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith(".sql")).sort(), "meta/_journal.json"];
  for (const file of files) {
    hash.update(file);
    hash.update(readFileSync(join(MIGRATIONS_FOLDER, file)));
  }
  return hash.digest("hex").slice(0, 16);
}

/** Where the snapshot of the current migrations lives (a directory, present once built). */
export function snapshotPath(): string {
  return join(CACHE_DIR, `pglite-${snapshotKey()}`);
}

/** Whether a PGlite directory has yet to be created: absent, empty, or a copy that was interrupted. */
export function isFreshDirectory(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0 || existsSync(join(dir, INCOMPLETE_MARKER));
}

/**
 * Creates a migrated PGlite directory at `target` (which must not exist), shut down cleanly:
 * initdb and migrations in memory (much faster than on disk), then the files written out by
 * PGlite and closed. Built beside `target` and renamed into place, so it is whole or absent.
 * Resolves false when another process created `target` first (it is then theirs, and whole).
 */
async function createMigratedDirectory(target: string): Promise<boolean> {
  const staging = `${target}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const memory = new PGlite();
    let tarball: Blob;
    try {
      await memory.waitReady;
      await migrate(drizzle(memory), { migrationsFolder: MIGRATIONS_FOLDER });
      tarball = await memory.dumpDataDir("none");
    } finally {
      await memory.close().catch(() => {});
    }
    mkdirSync(staging, { recursive: true });
    const disk = new PGlite(staging, { loadDataDir: tarball });
    try {
      await disk.waitReady;
    } finally {
      await disk.close();
    }
    try {
      renameSync(staging, target);
      return true;
    } catch (error) {
      if (existsSync(join(target, "PG_VERSION"))) return false; // a concurrent build won the race
      throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * The snapshot for the current migrations: the one built at install, or built now (once) when
 * there is none. Null when the cache cannot be written; `built` says whether this call built it.
 */
async function ensureSnapshot(): Promise<{ path: string; built: boolean } | null> {
  const path = snapshotPath();
  if (existsSync(path)) return { path, built: false };
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    accessSync(CACHE_DIR, constants.W_OK);
  } catch {
    return null;
  }
  return { path, built: await createMigratedDirectory(path) };
}

/** A file-by-file copy of a directory tree (modes kept); `last` (a top-level file) is copied last. */
function copyTree(from: string, to: string, last?: string): void {
  mkdirSync(to, { recursive: true, mode: statSync(from).mode & 0o777 });
  const entries = readdirSync(from, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name === last) continue;
    if (entry.isDirectory()) copyTree(join(from, entry.name), join(to, entry.name));
    else copyFileSync(join(from, entry.name), join(to, entry.name));
  }
  if (last && entries.some((e) => e.name === last)) copyFileSync(join(from, last), join(to, last));
}

/**
 * Makes `dir` (fresh: see isFreshDirectory) a copy of the snapshot. An absent directory is copied
 * beside it and renamed into place; an existing one (a mount point, say) is filled in place behind
 * a marker, PG_VERSION last, so an interrupted copy is never taken for a database.
 */
function restoreSnapshot(snapshot: string, dir: string): void {
  dir = resolve(dir);
  if (!isFreshDirectory(dir)) throw new Error(`${dir} already holds a database`);
  if (!existsSync(dir)) {
    // The caller holds the directory's lock: a copy left beside it by a crashed start is stale.
    if (existsSync(dirname(dir))) {
      for (const entry of readdirSync(dirname(dir))) {
        if (entry.startsWith(`${basename(dir)}.restoring-`)) rmSync(join(dirname(dir), entry), { recursive: true, force: true });
      }
    }
    const staging = `${dir}.restoring-${process.pid}`;
    try {
      mkdirSync(dirname(dir), { recursive: true });
      copyTree(snapshot, staging);
      renameSync(staging, dir);
      return;
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      throw error;
    }
  }
  mkdirSync(dir, { recursive: true });
  const marker = join(dir, INCOMPLETE_MARKER);
  writeFileSync(marker, "");
  for (const entry of readdirSync(dir)) if (entry !== INCOMPLETE_MARKER) rmSync(join(dir, entry), { recursive: true, force: true });
  copyTree(snapshot, dir, "PG_VERSION");
  unlinkSync(marker);
}

/** The helper waits this long before copying, so as not to slow the start that spawned it (nor a restart right after). */
const SPARE_HELPER_DELAY_MS = 2_500;
/** Two, so that first starts in quick succession (tests, benchmarks) find one while the helper copies. */
const SPARES = 2;

/** The ready copies of a snapshot, kept beside it for first starts to rename into place. */
function sparePaths(snapshot: string): string[] {
  return Array.from({ length: SPARES }, (_, i) => `${snapshot}.spare-${i + 1}`);
}

/**
 * Moves a spare copy of the snapshot to `dir` (absent, or empty: the caller holds its lock): a
 * first start with no file to write. False when there is no spare, or it cannot be moved there
 * (another file system, a mount point); the caller then copies the snapshot.
 */
function takeSpare(snapshot: string, dir: string): boolean {
  dir = resolve(dir);
  for (const spare of sparePaths(snapshot)) {
    if (!existsSync(spare)) continue;
    try {
      if (existsSync(dir)) {
        if (readdirSync(dir).length > 0) return false;
        rmdirSync(dir);
      }
      mkdirSync(dirname(dir), { recursive: true });
      renameSync(spare, dir);
      return true;
    } catch (error) {
      // Taken by another first start meanwhile: try the next one. Anything else: copy instead.
      if ((error as { code?: string }).code !== "ENOENT") return false;
    }
  }
  return false;
}

/** Makes the missing spare copies of the snapshot (one process at a time; the others leave it to that one). */
function makeSpares(snapshot: string): void {
  if (!existsSync(snapshot) || sparePaths(snapshot).every((spare) => existsSync(spare))) return;
  let unlock: () => void;
  try {
    unlock = lockDirectory(`${snapshot}.spares`);
  } catch {
    return; // another process is making them
  }
  try {
    // Under the lock, a half-made spare left by a killed helper is stale.
    for (const entry of readdirSync(dirname(snapshot))) {
      if (entry.startsWith(`${basename(snapshot)}.spare-`) && entry.includes(".staging-")) rmSync(join(dirname(snapshot), entry), { recursive: true, force: true });
    }
    // Until none is missing: a first start may take one while another is copied.
    for (let missing = sparePaths(snapshot).find((p) => !existsSync(p)); missing; missing = sparePaths(snapshot).find((p) => !existsSync(p))) {
      const staging = `${missing}.staging-${process.pid}`;
      try {
        copyTree(snapshot, staging);
        renameSync(staging, missing);
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    }
  } finally {
    unlock();
  }
}

/** When a spare is missing, a detached helper process (this file, `--spare`) makes it, off every start's path. */
function replenishSparesInBackground(snapshot: string): void {
  if (sparePaths(snapshot).every((spare) => existsSync(spare))) return;
  try {
    const helper = Bun.spawn([process.execPath, fileURLToPath(import.meta.url), "--spare"], { stdio: ["ignore", "ignore", "ignore"], detached: true });
    helper.unref();
    // Lowest priority: the server starting beside it comes first.
    setPriority(helper.pid, 19);
  } catch {
    // no helper: the next first start copies the snapshot instead
  }
}

/**
 * A first start: the directory becomes the spare copy of the pre-migrated snapshot (a rename) or
 * a copy of it (the snapshot is built now if missing).
 */
export async function createPgliteDirectory(dir: string): Promise<void> {
  const installed = snapshotPath();
  if (existsSync(installed)) {
    console.log(`first start: creating the embedded database in ${dir} (from the snapshot built at install, well under a second)`);
    if (!takeSpare(installed, dir)) restoreSnapshot(installed, dir);
    return replenishSparesInBackground(installed);
  }
  console.log(`first start: creating the embedded database in ${dir} (no snapshot of these migrations yet: initdb and migrations, a few seconds)`);
  const snapshot = await ensureSnapshot();
  if (snapshot) {
    restoreSnapshot(snapshot.path, dir);
    return replenishSparesInBackground(snapshot.path);
  }
  // The cache cannot be written: build it beside the directory, then copy it in.
  const staging = `${resolve(dir)}.snapshot-${process.pid}`;
  mkdirSync(dirname(staging), { recursive: true });
  try {
    await createMigratedDirectory(staging);
    restoreSnapshot(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Removes what belongs to other migrations (snapshots, spares, the tarballs of the earlier
 * format) and what a killed process left half-made.
 */
function pruneOtherSnapshots(keep: string): void {
  for (const entry of readdirSync(CACHE_DIR)) {
    const match = /^pglite-([0-9a-f]{16})(?:\.tar|\.spare-\d+|\.spares\.lock)?(?:\.(?:building|staging)-(\d+))?$/.exec(entry);
    if (!match) continue;
    const owner = match[2] ? Number(match[2]) : undefined;
    const stale = owner !== undefined ? !isAlive(owner) : `pglite-${match[1]}` !== keep;
    if (stale) rmSync(join(CACHE_DIR, entry), { recursive: true, force: true });
  }
}

if (import.meta.main) {
  if (process.argv.includes("--spare")) {
    // The helper a first start leaves behind: the next spare copy, quietly, once that start is done.
    await Bun.sleep(SPARE_HELPER_DELAY_MS);
    try {
      makeSpares(snapshotPath());
    } catch {}
    process.exit(0);
  }
  // postinstall: a failure here must never fail `bun install`; the first start then builds it.
  try {
    const started = performance.now();
    const snapshot = await ensureSnapshot();
    if (!snapshot) throw new Error(`${CACHE_DIR} cannot be written`);
    makeSpares(snapshot.path);
    pruneOtherSnapshots(basename(snapshot.path));
    console.log(`pglite snapshot ${snapshot.built ? "built" : "already built"}, with its spare copies: ${snapshot.path} (${Math.round(performance.now() - started)} ms)`);
  } catch (error) {
    console.warn(`pglite snapshot not built (the first start will build it): ${error}`);
  }
}
