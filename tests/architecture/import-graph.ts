import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/** The repository's own TypeScript import graph, read from the source text (every import, type-only ones too). */
export interface ImportGraph {
  root: string;
  /** Files, relative to the root. */
  files: string[];
  /** file → the files of this repository it imports (relative to the root). */
  imports: Map<string, string[]>;
  /** file → every import specifier as written. */
  specifiers: Map<string, string[]>;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s*["']([^"']+)["']/gm;

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
}

/** The workspace packages by name, with their export map, so `@poker-bots/core/cards` resolves to a file. */
function workspacePackages(root: string): Map<string, { dir: string; exports: Record<string, string> }> {
  const packages = new Map<string, { dir: string; exports: Record<string, string> }>();
  for (const name of readdirSync(join(root, "packages"))) {
    const manifest = join(root, "packages", name, "package.json");
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, "utf8"));
    packages.set(json.name, { dir: join("packages", name), exports: json.exports ?? { ".": json.main } });
  }
  return packages;
}

export function importGraph(root: string, folders = ["src", "packages"]): ImportGraph {
  const absolute: string[] = [];
  for (const folder of folders) walk(join(root, folder), absolute);
  const files = absolute.map((f) => relative(root, f)).filter((f) => !f.includes("/node_modules/"));
  const known = new Set(files);
  const packages = workspacePackages(root);
  const resolveFile = (base: string): string | null => {
    for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) if (known.has(candidate)) return candidate;
    return null;
  };
  const imports = new Map<string, string[]>();
  const specifiers = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const found: string[] = [];
    for (const match of text.matchAll(SPECIFIER)) found.push(match[1] ?? match[2] ?? match[3]);
    specifiers.set(file, found);
    const targets = new Set<string>();
    for (const specifier of found) {
      let target: string | null = null;
      if (specifier.startsWith(".")) target = resolveFile(normalize(join(dirname(file), specifier)));
      else {
        const name = specifier.split("/").slice(0, 2).join("/");
        const pkg = packages.get(name);
        const subpath = `.${specifier.slice(name.length)}` || ".";
        if (pkg?.exports[subpath === "." ? "." : subpath]) target = resolveFile(normalize(join(pkg.dir, pkg.exports[subpath === "." ? "." : subpath])));
      }
      if (target && target !== file) targets.add(target);
    }
    imports.set(file, [...targets]);
  }
  return { root, files, imports, specifiers };
}

/** Strongly connected components of more than one file, or a file importing itself: the import cycles. */
export function importCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    indices.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.imports.get(file) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, indices.get(next)!));
    }
    if (low.get(file) === indices.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const file of graph.files) if (!indices.has(file)) visit(file);
  return cycles;
}

/**
 * The graph of src/modules' feature folders: folder → the other folders its files import (every
 * import, type-only ones too). Its cycles are folders that import each other, however indirectly.
 */
export function folderGraph(graph: ImportGraph): ImportGraph {
  const folderOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;
  const imports = new Map<string, Set<string>>();
  for (const [file, targets] of graph.imports) {
    const from = folderOf(file);
    if (from === null) continue;
    const into = imports.get(from) ?? new Set<string>();
    imports.set(from, into);
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== null && to !== from) into.add(to);
    }
  }
  const folders = [...imports.keys()].sort();
  return { root: graph.root, files: folders, imports: new Map([...imports].map(([folder, set]) => [folder, [...set].sort()])), specifiers: new Map() };
}
