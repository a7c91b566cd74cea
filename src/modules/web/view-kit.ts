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
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "3 1", "12 2"];

/** Lines over an x of 0..n-1, as SVG; colours and dash patterns both tell the series apart. */
export function lineChartSvg(series: ChartSeries[], options: { title: string; yLabel: string; xLabel: string }): string {
  const width = 640;
  const height = 240;
  const pad = { left: 56, right: 12, top: 12, bottom: 36 };
  const all = series.flatMap((s) => s.points);
  const n = Math.max(2, ...series.map((s) => s.points.length));
  const min = Math.min(0, ...all);
  const max = Math.max(1, ...all);
  const x = (i: number) => pad.left + (i / (n - 1)) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + (1 - (v - min) / (max - min || 1)) * (height - pad.top - pad.bottom);
  const lines = series
    .map((s, i) => {
      const points = s.points.map((v, j) => `${x(j).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      return `<polyline fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2" stroke-dasharray="${DASHES[i % DASHES.length]}" points="${points}"><title>${escapeHtml(s.label)}</title></polyline>`;
    })
    .join("");
  const legend = series
    .map((s, i) => `<li><svg width="28" height="8" aria-hidden="true"><line x1="0" y1="4" x2="28" y2="4" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2" stroke-dasharray="${DASHES[i % DASHES.length]}"/></svg> ${escapeHtml(s.label)}</li>`)
    .join("");
  const zero = min < 0 ? `<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(0)}" y2="${y(0)}" class="zero"/>` : "";
  return `<figure class="chart"><svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(options.title)}">
<rect x="${pad.left}" y="${pad.top}" width="${width - pad.left - pad.right}" height="${height - pad.top - pad.bottom}" class="frame"/>${zero}
<text x="${pad.left - 6}" y="${pad.top + 10}" text-anchor="end">${max}</text><text x="${pad.left - 6}" y="${height - pad.bottom}" text-anchor="end">${min}</text>
<text x="${(width + pad.left) / 2}" y="${height - 8}" text-anchor="middle">${escapeHtml(options.xLabel)}</text>
<text x="14" y="${height / 2}" transform="rotate(-90 14 ${height / 2})" text-anchor="middle">${escapeHtml(options.yLabel)}</text>${lines}</svg>
<figcaption>${escapeHtml(options.title)}<ul class="legend">${legend}</ul></figcaption></figure>`;
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
