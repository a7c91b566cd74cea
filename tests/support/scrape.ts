/** Reading a Prometheus text exposition in tests. */

/** Label names any series may carry: each has a small fixed set of values (never an id, key or card). */
export const ALLOWED_LABELS = new Set(["node", "method", "route", "status", "kind", "outcome", "reason", "type", "result", "cause", "format", "le", "quantile", "space", "version", "major", "minor", "patch"]);

export function series(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    out.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return out;
}

export const total = (text: string, name: string, labels: Record<string, string> = {}) =>
  series(text)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
