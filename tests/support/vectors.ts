import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./process";

/** The reference vectors kept in the repository (see tests/vectors/README.md for their sources). */
export const REPO_VECTORS = join(ROOT, "tests", "vectors");

/**
 * Where the tests read the reference vectors: the repository's own copy, so a clone needs nothing
 * beside it. `VECTORS_DIR` points them at another copy (a newer set being tried out).
 */
export function vectorsDir(): string {
  const dir = process.env.VECTORS_DIR || REPO_VECTORS;
  if (!existsSync(join(dir, "manifest.json"))) throw new Error(`no reference vectors in ${dir} (manifest.json missing)`);
  return dir;
}
