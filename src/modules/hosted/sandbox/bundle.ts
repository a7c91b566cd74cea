/**
 * Upload-time bundling: the bot file + the SDK's pure parts + the guest glue → one script that
 * runs in a bare QuickJS context (no module loader, no host objects). Bun.build does the work;
 * a plugin keeps the file from importing anything but the SDK, so nothing that opens a socket
 * or reads a file can end up inside.
 */
import { fileURLToPath } from "node:url";

export interface BuildProblem {
  message: string;
  line?: number;
  column?: number;
}

/**
 * The script a bot becomes (its file, the SDK's pure parts, the guest glue) is at most this long: the
 * starter bot's is ~170 KiB, and a 256 KiB file of ordinary code stays well under. The source limit
 * alone is not enough: TypeScript inlines a `const enum` member at every use, so an 81 KB file of
 * 20,000 uses of a 1,000-character member becomes a 20 MB script (stored per version, loaded in
 * every context of every match).
 */
export const MAX_BUNDLED_BYTES = 1024 * 1024;

export type BuildResult =
  | { ok: true; code: string }
  /** `tooLarge`: the file built, but into a script over the limit (the size is what it came to, or at least that). */
  | { ok: false; errors: BuildProblem[]; tooLarge?: { bytes: number; maxBytes: number } };

const SDK_PURE = fileURLToPath(new URL("./sdk-pure.ts", import.meta.url));
/** The uploaded file's name inside the build (its imports are the ones to police). */
const BOT_PATH = "uploaded-bot";
const GUEST = fileURLToPath(new URL("./guest.ts", import.meta.url));

/** What a bot may import: the SDK by package name, or by the repository path the examples use. */
function isSdkImport(specifier: string): boolean {
  return /^@poker-bots\/sdk(\/index(\.ts)?)?$/.test(specifier) || /(^|\/)packages\/sdk\/src\/index(\.ts)?$/.test(specifier) || /(^|\/)sdk\/src\/index(\.ts)?$/.test(specifier);
}

// The entry imports the guest first so it evaluates (and takes its references to console and
// JSON) before any line of the bot runs.
// A namespace import, so a file without a default export still builds and install() can say
// what is missing in words.
const ENTRY = `import { install } from ${JSON.stringify(GUEST)};\nimport * as file from "hosted:bot";\ninstall(file["default"]);\n`;

export async function bundleBot(source: string, language: "ts" | "js" = "ts", maxBytes = MAX_BUNDLED_BYTES): Promise<BuildResult> {
  // `if (import.meta.main) await runBot(bot)` (the starter's last line) is dead code when hosted:
  // the transpiler drops it, so the top-level await in it does not stop an IIFE build.
  let transpiled: string;
  try {
    // transform(), not transformSync(): Bun transpiles on its own threads, off the event loop.
    transpiled = await new Bun.Transpiler({ loader: language, target: "browser", define: { "import.meta.main": "false" }, deadCodeElimination: true }).transform(source);
  } catch (error) {
    return { ok: false, errors: problemsOf(error) };
  }
  // The const enums are inlined already: a file that amplifies is refused before the build (its characters are at most its bytes).
  if (transpiled.length > maxBytes) return tooLarge(transpiled.length, maxBytes, true);
  const rejected: BuildProblem[] = [];
  let output;
  try {
    output = await Bun.build({
      entrypoints: ["hosted:entry"],
      format: "iife",
      target: "browser",
      minify: { syntax: true },
      throw: false,
      plugins: [
        {
          name: "hosted-bot",
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.path === "hosted:entry") return { path: "entry", namespace: "hosted" };
              if (args.path === "hosted:bot") return { path: BOT_PATH, namespace: "hosted" };
              if (args.importer !== BOT_PATH) return undefined; // our own files resolve as usual
              if (isSdkImport(args.path)) return { path: SDK_PURE };
              rejected.push({ message: `cannot import "${args.path}": a hosted bot is one file and may import only @poker-bots/sdk` });
              return { path: args.path, namespace: "rejected" };
            });
            build.onLoad({ filter: /.*/, namespace: "rejected" }, () => ({ contents: "export {};", loader: "js" }));
            build.onLoad({ filter: /.*/, namespace: "hosted" }, (args) =>
              args.path === "entry" ? { contents: ENTRY, loader: "js" } : { contents: transpiled, loader: "js" },
            );
          },
        },
      ],
    });
  } catch (error) {
    return { ok: false, errors: [...rejected, ...problemsOf(error)] };
  }
  if (rejected.length > 0) return { ok: false, errors: rejected };
  if (!output.success) return { ok: false, errors: output.logs.filter((l) => l.level === "error").flatMap(problemsOf) };
  const code = await output.outputs[0].text();
  const bytes = Buffer.byteLength(code);
  if (bytes > maxBytes) return tooLarge(bytes, maxBytes, false);
  return { ok: true, code };
}

/** `atLeast`: refused after the transpile, before the build (the bundle would be larger still). */
function tooLarge(bytes: number, maxBytes: number, atLeast: boolean): BuildResult {
  const size = `${atLeast ? "at least " : ""}${bytes.toLocaleString("en-US")} bytes`;
  const message = `the bundled script would be ${size}, over the ${maxBytes.toLocaleString("en-US")}-byte limit (TypeScript copies a const enum member's value to every use: a plain object or const keeps one copy)`;
  return { ok: false, errors: [{ message }], tooLarge: { bytes, maxBytes } };
}

/** Bun's build and transpile errors (one, several or an AggregateError) as plain data. */
function problemsOf(error: unknown): BuildProblem[] {
  if (error instanceof AggregateError) return error.errors.flatMap(problemsOf);
  const e = error as { message?: string; position?: { line?: number; column?: number } | null };
  const problem: BuildProblem = { message: String(e?.message ?? error).slice(0, 500) };
  if (e?.position?.line) {
    problem.line = e.position.line;
    problem.column = e.position.column;
  }
  return [problem];
}
