import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ROOT } from "./process";

/**
 * The public reference data, which lives beside the project (`../shared/vectors`), never in it:
 * `VECTORS_DIR` if set, else beside this checkout, else beside the repository it was cloned from
 * (a clone made in a temporary directory). Not found is an error naming where it looked.
 */
export function vectorsDir(): string {
  const candidates = [process.env.VECTORS_DIR, join(ROOT, "..", "shared", "vectors")];
  const origin = Bun.spawnSync(["git", "config", "--get", "remote.origin.url"], { cwd: ROOT }).stdout.toString().trim();
  if (origin !== "" && !origin.includes("://") && !origin.includes("@")) candidates.push(join(resolve(ROOT, origin), "..", "shared", "vectors"));
  const looked = candidates.filter((dir): dir is string => dir !== undefined && dir !== "");
  const found = looked.find((dir) => existsSync(join(dir, "manifest.json")));
  if (!found) throw new Error(`the reference vectors are not in ${looked.join(" nor ")}: set VECTORS_DIR`);
  return found;
}
