/**
 * Pure rendering pieces shared by the server's pages and the browser scripts (bundled into them):
 * escaping, cards, the chips chart. Strings in, strings out: no DOM, no I/O.
 */

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SUITS: Record<string, { symbol: string; name: string }> = {
  s: { symbol: "♠", name: "spades" },
  h: { symbol: "♥", name: "hearts" },
  d: { symbol: "♦", name: "diamonds" },
  c: { symbol: "♣", name: "clubs" },
};
const RANK_NAMES: Record<string, string> = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };

/** A card ("Ah") as a card: rank, suit symbol and a four-colour suit class (readable without colour too); null: face down. */
export function cardHtml(card: string | null): string {
  if (card === null || card.length !== 2 || !SUITS[card[1]]) return `<span class="card back" role="img" aria-label="hidden card"></span>`;
  const suit = SUITS[card[1]];
  const rank = card[0] === "T" ? "10" : card[0];
  return `<span class="card ${suit.name}" data-card="${card}" role="img" aria-label="${RANK_NAMES[card[0]] ?? rank} of ${suit.name}">${rank}<span class="suit">${suit.symbol}</span></span>`;
}

export function cardsHtml(cards: Array<string | null>): string {
  return `<span class="cards">${cards.map(cardHtml).join("")}</span>`;
}

export interface ChartSeries {
  label: string;
  points: number[];
  /** An uncertainty band around the line (same length as points), drawn shaded under it. */
  band?: { low: number[]; high: number[] };
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "3 1", "12 2"];

/**
 * About `count` round values spanning min..max (1, 2 or 5 times a power of ten apart), never fewer
 * than 3: an axis labelled at two values only reads badly (-500 and 0 for -850..1), so the step is
 * taken one notch finer until three fit.
 */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const span = max - min || 1;
  const raw = span / Math.max(1, count - 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const steps = [0.5, 1, 2, 5, 10].map((m) => m * power);
  let notch = steps.findIndex((s) => s >= raw);
  let ticks = ticksEvery(min, max, steps[notch]);
  while (ticks.length < 3 && notch > 0) ticks = ticksEvery(min, max, steps[--notch]);
  return ticks;
}

function ticksEvery(min: number, max: number, step: number): number[] {
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Math.round(v / step) * step);
  return ticks;
}

const tickText = (v: number) => (Math.abs(v) >= 10_000 ? `${Math.round(v / 1000)}k` : Number.isInteger(v) ? String(v) : v.toFixed(1));

/**
 * Lines over an x of 0..n-1, as SVG, with labelled axes: round values up the side, and along the
 * bottom the x labels given (`xLabels[i]` for point i: match numbers, dates) at a few evenly spaced
 * points. Colours and dash patterns both tell the series apart; the legend's entries never wrap.
 */
export function lineChartSvg(series: ChartSeries[], options: { title: string; yLabel: string; xLabel: string; xLabels?: string[]; id?: string; note?: string }): string {
  const width = 640;
  const height = 260;
  const pad = { left: 62, right: 14, top: 12, bottom: 50 };
  const all = series.flatMap((s) => [...s.points, ...(s.band ? [...s.band.low, ...s.band.high] : [])]);
  const n = Math.max(2, ...series.map((s) => s.points.length));
  const ticks = niceTicks(Math.min(0, ...all), Math.max(1, ...all));
  const min = Math.min(ticks[0], ...all);
  const max = Math.max(ticks[ticks.length - 1], ...all);
  const x = (i: number) => pad.left + (i / (n - 1)) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + (1 - (v - min) / (max - min || 1)) * (height - pad.top - pad.bottom);
  const xy = (v: number, j: number) => `${x(j).toFixed(1)},${y(v).toFixed(1)}`;
  const bands = series
    .map((s, i) => (s.band ? `<polygon class="band" fill="${PALETTE[i % PALETTE.length]}" points="${[...s.band.high.map(xy), ...s.band.low.map(xy).reverse()].join(" ")}"/>` : ""))
    .join("");
  const lines = series
    .map((s, i) => {
      const points = s.points.map(xy).join(" ");
      return `<polyline fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2" stroke-dasharray="${DASHES[i % DASHES.length]}" points="${points}"><title>${escapeHtml(s.label)}</title></polyline>`;
    })
    .join("");
  const legend = series
    .map((s, i) => `<li><svg width="28" height="8" aria-hidden="true"><line x1="0" y1="4" x2="28" y2="4" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2" stroke-dasharray="${DASHES[i % DASHES.length]}"/></svg><span title="${escapeHtml(s.label)}">${escapeHtml(s.label)}</span></li>`)
    .join("");
  const yTicks = ticks
    .map((v) => `<line x1="${pad.left - 4}" x2="${width - pad.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="${v === 0 ? "zero" : "grid"}"/><text x="${pad.left - 7}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" class="tick y">${tickText(v)}</text>`)
    .join("");
  const labels = options.xLabels ?? Array.from({ length: n }, (_, i) => String(i));
  const shown = Math.min(n, 6);
  const xTicks = Array.from({ length: shown }, (_, k) => Math.round((k * (n - 1)) / Math.max(1, shown - 1)))
    .filter((i, k, list) => list.indexOf(i) === k && labels[i] !== undefined)
    .map((i) => `<line x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${height - pad.bottom}" y2="${height - pad.bottom + 4}" class="axis"/><text x="${x(i).toFixed(1)}" y="${height - pad.bottom + 16}" text-anchor="${i === 0 ? "start" : i === n - 1 ? "end" : "middle"}" class="tick x">${escapeHtml(labels[i])}</text>`)
    .join("");
  return `<figure class="chart"${options.id ? ` id="${escapeHtml(options.id)}"` : ""}><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.title)}">
<rect x="${pad.left}" y="${pad.top}" width="${width - pad.left - pad.right}" height="${height - pad.top - pad.bottom}" class="frame"/>${yTicks}${xTicks}${bands}
<text x="${(width + pad.left) / 2}" y="${height - 8}" text-anchor="middle" class="axis-label x">${escapeHtml(options.xLabel)}</text>
<text x="14" y="${(height - pad.bottom) / 2}" transform="rotate(-90 14 ${(height - pad.bottom) / 2})" text-anchor="middle" class="axis-label y">${escapeHtml(options.yLabel)}</text>${lines}</svg>
<figcaption>${escapeHtml(options.title)}${options.note ? `<br><span class="muted">${escapeHtml(options.note)}</span>` : ""}<ul class="legend">${legend}</ul></figcaption></figure>`;
}

/** A bot id as a short label (the id's tail is what tells bots apart). */
export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 4)}…${id.slice(-6)}` : id;
}

/**
 * An interval on a shared scale, as a small SVG (a style attribute would break the pages' CSP):
 * a bar from `low` to `high` with a tick at `mid`. Rows drawn with the same `scale` line up, so a
 * column of them compares bots by eye.
 */
export function intervalBarSvg(interval: { low: number; mid: number; high: number }, scale: { min: number; max: number }, label: string): string {
  const width = 160;
  const height = 14;
  const x = (v: number) => (((v - scale.min) / (scale.max - scale.min || 1)) * (width - 2) + 1).toFixed(1);
  return `<svg class="interval" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(label)}"><title>${escapeHtml(label)}</title>
<line x1="1" x2="${width - 1}" y1="${height / 2}" y2="${height / 2}" class="axis"/><rect x="${x(interval.low)}" y="3" width="${(Number(x(interval.high)) - Number(x(interval.low))).toFixed(1)}" height="${height - 6}" rx="2" class="span"/>
<line x1="${x(interval.mid)}" x2="${x(interval.mid)}" y1="1" y2="${height - 1}" class="mid"/></svg>`;
}
