import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_VECTORS } from "../support/vectors.ts";
import { ROOT } from "../support/process.ts";

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const manifest: Array<{ file: string }> = await Bun.file(join(REPO_VECTORS, "manifest.json")).json();
const data = filesUnder(REPO_VECTORS).filter((file) => file !== "README.md");

describe("the reference vectors live in the repository", () => {
  test("every hand the manifest names is here, and nothing else but the manifest, the evaluator checks and the README", () => {
    expect(manifest).toHaveLength(19);
    const named = manifest.map((entry) => entry.file);
    for (const file of named) expect(existsSync(join(REPO_VECTORS, file))).toBe(true);
    expect(data).toEqual([...named, "evaluator-checks.json", "manifest.json"].sort());
  });

  // The research copy beside the original checkout, when this machine has it: the repository's
  // copy must stay byte for byte the same. (A clone elsewhere has none, and needs none.)
  const shared = join(ROOT, "..", "shared", "vectors");
  test(`byte-identical to ${shared} when that folder exists`, async () => {
    if (!existsSync(shared)) {
      expect(existsSync(join(REPO_VECTORS, "manifest.json"))).toBe(true);
      return;
    }
    let compared = 0;
    for (const file of data) {
      const [ours, theirs] = await Promise.all([Bun.file(join(REPO_VECTORS, file)).bytes(), Bun.file(join(shared, file)).bytes()]);
      expect([file, Buffer.compare(Buffer.from(ours), Buffer.from(theirs))]).toEqual([file, 0]);
      compared += 1;
    }
    expect(compared).toBe(21);
  });
});
