/** A small typed argv parser: `--flag value`, `--flag=value`, boolean `--flag`, positionals. */
export type FlagKind = "string" | "boolean";
export type FlagSpec = Record<string, { kind: FlagKind; help: string; value?: string }>;

export interface Parsed {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[], spec: FlagSpec): Parsed {
  const positionals: string[] = [];
  const flags: Parsed["flags"] = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const known = name === "help" ? { kind: "boolean" as const } : spec[name];
    if (!known) throw new UsageError(`unknown option --${name}`);
    if (known.kind === "boolean") {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags[name] = value;
  }
  return { positionals, flags };
}

export function str(parsed: Parsed, name: string): string | undefined {
  const value = parsed.flags[name];
  return typeof value === "string" ? value : undefined;
}

export function int(parsed: Parsed, name: string, fallback?: number, min = -Infinity, max = Infinity): number | undefined {
  const value = str(parsed, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer${min > -Infinity ? ` from ${min}` : ""}${max < Infinity ? ` to ${max}` : ""}, got "${value}"`);
  }
  return n;
}

export function bool(parsed: Parsed, name: string): boolean {
  return parsed.flags[name] === true;
}

export function formatFlags(spec: FlagSpec): string {
  const rows = Object.entries(spec).map(([name, f]) => [`--${name}${f.kind === "string" ? ` <${f.value ?? "value"}>` : ""}`, f.help]);
  rows.push(["--help", "show this help"]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
}
