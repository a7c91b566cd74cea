import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";
import { folderGraph, importCycles, importGraph } from "./import-graph";

/**
 * docs/ARCHITECTURE.md kept true: the import graph of src/ and packages/ (every import, type-only
 * ones too) against the map's "may import" column and the layering rules.
 */
const graph = importGraph(ROOT);
const doc = readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8");

/** `src/modules/tables/seating.ts` → "tables"; `src/plugins/auth.ts` → "plugins"; else null. */
function featureOf(file: string): string | null {
  const module = /^src\/modules\/([^/]+)\//.exec(file);
  if (module) return module[1];
  return file.startsWith("src/plugins/") ? "plugins" : null;
}

/** The map's rows: each folder named in its first column → the features it may import. */
function mapRows(): Map<string, Set<string>> {
  const block = doc.slice(doc.indexOf("<!-- architecture:map:start -->"), doc.indexOf("<!-- architecture:map:end -->"));
  const rows = new Map<string, Set<string>>();
  for (const line of block.split("\n").filter((l) => l.startsWith("| `"))) {
    const [folders, , allowed] = line.split("|").slice(1).map((cell) => cell.trim());
    const names = [...allowed.matchAll(/\b([a-z-]+)\b/g)].map((m) => m[1]).filter((name) => !["none", "no", "feature", "plugin", "nothing", "of", "the", "service"].includes(name));
    for (const [, folder] of folders.matchAll(/`([^`]+)`/g)) rows.set(folder, new Set(names));
  }
  return rows;
}

describe("docs/ARCHITECTURE.md holds", () => {
  test("every feature folder imports only the folders the map allows it", () => {
    const rows = mapRows();
    const features = new Set(graph.files.map(featureOf).filter((f): f is string => f !== null));
    let checked = 0;
    const breaches: string[] = [];
    for (const feature of features) {
      const folder = feature === "plugins" ? "src/plugins" : `src/modules/${feature}`;
      const allowed = rows.get(folder);
      expect({ folder, inTheMap: allowed !== undefined }).toEqual({ folder, inTheMap: true });
      for (const file of graph.files.filter((f) => featureOf(f) === feature)) {
        for (const target of graph.imports.get(file)!) {
          const other = featureOf(target);
          checked += 1;
          if (other !== null && other !== feature && !allowed!.has(other)) breaches.push(`${file} → ${target}`);
        }
      }
    }
    expect(breaches).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });

  test("src/lib, src/db and src/poker import no feature and no plugin; plugins import no feature; packages import nothing of the service", () => {
    const breaches: string[] = [];
    let checked = 0;
    for (const [file, targets] of graph.imports) {
      const lower = /^src\/(lib|db|poker)\//.test(file);
      const plugin = file.startsWith("src/plugins/");
      const pkg = file.startsWith("packages/");
      if (!lower && !plugin && !pkg) continue;
      for (const target of targets) {
        checked += 1;
        if (lower && (target.startsWith("src/modules/") || target.startsWith("src/plugins/"))) breaches.push(`${file} → ${target}`);
        if (plugin && target.startsWith("src/modules/")) breaches.push(`${file} → ${target}`);
        if (pkg && !target.startsWith("packages/")) breaches.push(`${file} → ${target}`);
      }
    }
    expect(breaches).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  test("no import cycle", () => {
    expect(importCycles(graph)).toEqual([]);
    expect(graph.files.length).toBeGreaterThan(100);
  });

  test("no cycle between folders of src/modules: no folder imports one that imports it back, however indirectly (type imports included)", () => {
    const folders = folderGraph(graph);
    // Each cycle named with the imports that close it, so a failure says which files to change.
    const explained = importCycles(folders).map((cycle) =>
      cycle.flatMap((from) =>
        graph.files
          .filter((file) => file.startsWith(`src/modules/${from}/`))
          .flatMap((file) => graph.imports.get(file)!.filter((target) => cycle.some((to) => to !== from && target.startsWith(`src/modules/${to}/`))).map((target) => `${file} → ${target}`)),
      ),
    );
    expect(explained).toEqual([]);
    expect(folders.files.length).toBeGreaterThan(15);
  });

  test("the folder graph sees a cycle that no file closes: two folders importing each other through different files", () => {
    const twoWay: typeof graph = {
      root: graph.root,
      files: ["src/modules/a/one.ts", "src/modules/a/two.ts", "src/modules/b/three.ts"],
      imports: new Map([
        ["src/modules/a/one.ts", ["src/modules/b/three.ts"]],
        ["src/modules/a/two.ts", []],
        ["src/modules/b/three.ts", ["src/modules/a/two.ts"]],
      ]),
      specifiers: new Map(),
    };
    expect(importCycles(twoWay)).toEqual([]);
    expect(importCycles(folderGraph(twoWay))).toEqual([["a", "b"]]);
  });

  test("nothing reaches into packages/*/src by a relative path from outside that package", () => {
    const outside = importGraph(ROOT, ["src", "packages", "tests", "bench", "scripts", "examples"]);
    const breaches: string[] = [];
    for (const [file, specifiers] of outside.specifiers) {
      const own = /^packages\/([^/]+)\//.exec(file)?.[1];
      for (const specifier of specifiers) {
        const into = /^\.\.?\/.*packages\/([^/]+)\/src\//.exec(specifier)?.[1];
        if (into !== undefined && into !== own) breaches.push(`${file}: ${specifier}`);
      }
    }
    expect(breaches).toEqual([]);
    expect(outside.files.length).toBeGreaterThan(graph.files.length);
  });

  test("no feature folder holds more than a quarter of src/modules' lines", () => {
    const lines = new Map<string, number>();
    for (const file of graph.files) {
      const feature = featureOf(file);
      if (feature === null || feature === "plugins") continue;
      lines.set(feature, (lines.get(feature) ?? 0) + readFileSync(join(ROOT, file), "utf8").split("\n").length);
    }
    const total = [...lines.values()].reduce((a, b) => a + b, 0);
    const over = [...lines].filter(([, n]) => n > total / 4).map(([feature, n]) => `${feature}: ${n} of ${total}`);
    expect(over).toEqual([]);
    expect(lines.size).toBeGreaterThan(10);
  });

  test("every question of 'Where is it decided?' names files that exist and functions defined there", () => {
    const section = doc.slice(doc.indexOf("## Where is it decided?"), doc.indexOf("## The life of a request"));
    const rows = section.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| question") && !line.startsWith("|---"));
    expect(rows.length).toBeGreaterThanOrEqual(6);
    let names = 0;
    for (const row of rows) {
      const [, files, functions] = row.split("|").slice(1).map((cell) => cell.trim());
      const paths = [...files.matchAll(/`([^`]+\.ts)`/g)].map((m) => m[1]);
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) expect({ path, exists: existsSync(join(ROOT, path)) }).toEqual({ path, exists: true });
      const source = paths.map((path) => readFileSync(join(ROOT, path), "utf8")).join("\n");
      for (const [, holder, member] of functions.matchAll(/`([A-Za-z]+)(?:\.([A-Za-z]+))?`/g)) {
        for (const name of member ? [holder, member] : [holder]) {
          names += 1;
          expect({ name, defined: defines(source, name) || graph.files.some((file) => defines(readFileSync(join(ROOT, file), "utf8"), name)) }).toEqual({ name, defined: true });
        }
      }
    }
    expect(names).toBeGreaterThanOrEqual(rows.length);
  });
});

/** `name` is declared in `source`: a function, class, constant or interface, or a method or field of a class. */
function defines(source: string, name: string): boolean {
  return new RegExp(`(function|class|const|interface)\\s+${name}\\b|^\\s*(?:(?:async|readonly|private|static|public)\\s+)*${name}\\s*[(=<]`, "m").test(source);
}
