/** Edit distance (insertions, deletions, substitutions) between two short words. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** ` (did you mean "X"?)` for the closest name within two edits (or one the typo starts), else "". */
export function didYouMean(typed: string, names: string[]): string {
  const ranked = names.map((name) => ({ name, d: name.startsWith(typed) && typed.length >= 2 ? 0 : distance(typed, name) })).sort((x, y) => x.d - y.d);
  return ranked.length > 0 && ranked[0].d <= 2 ? ` (did you mean "${ranked[0].name}"?)` : "";
}

/** "in 23 h 59 min (2026-11-24T05:16:13Z)": a moment as a duration from `now`, with the timestamp. */
export function fromNow(iso: string, now = Date.now()): string {
  const minutes = Math.max(0, Math.ceil((Date.parse(iso) - now) / 60_000));
  const hours = Math.floor(minutes / 60);
  const span = hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
  return `in ${span} (${iso})`;
}
