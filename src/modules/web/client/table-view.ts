import { cardsHtml, escapeHtml, shortId } from "../view-kit";
import type { TableState } from "./table-state";

/** The table drawn as a table: seats around an oval, the board and the pot in the middle. */
export function tableHtml(state: TableState, maxSeats: number, names: Record<string, string> = {}): string {
  const seats = state.seats
    .map((s) => {
      const angle = (s.seat / Math.max(2, maxSeats)) * 2 * Math.PI + Math.PI / 2;
      const left = 50 + 42 * Math.cos(angle);
      const top = 50 + 40 * Math.sin(angle);
      const classes = ["seat", s.folded ? "folded" : "", s.won > 0 ? "winner" : ""].filter(Boolean).join(" ");
      const name = names[s.botId] ?? shortId(s.botId);
      return `<li class="${classes}" data-left="${left.toFixed(1)}" data-top="${top.toFixed(1)}" data-seat="${s.seat}">
<a href="/bots/${encodeURIComponent(s.botId)}">${escapeHtml(name)}</a>${state.button === s.seat ? ` <abbr class="button" title="button">D</abbr>` : ""}
<span class="stack">${s.stack}</span>${s.cards ? cardsHtml(s.cards) : ""}
<span class="bet">${s.bet > 0 ? `bet ${s.bet}` : ""}</span><span class="last">${escapeHtml(s.won > 0 ? `wins ${s.won}` : s.last)}</span></li>`;
    })
    .join("");
  const pots = state.pots.length > 1 ? `<span class="pots">${state.pots.map((p, i) => `${i === 0 ? "main" : `side ${i}`} ${p.amount}`).join(" · ")}</span>` : "";
  return `<div class="felt"><div class="middle"><div class="board" aria-label="board">${cardsHtml(state.board)}</div>
<div class="pot">pot <b data-pot>${state.pot}</b></div>${pots}</div><ul class="seats">${seats}</ul></div>`;
}

/**
 * Draws the table into `element`. Seats are placed through the DOM after the markup is in: the
 * Content-Security-Policy forbids inline style attributes (style-src 'self'), not styles set by
 * the page's own script.
 */
export function drawTable(element: HTMLElement, state: TableState, maxSeats: number, names: Record<string, string> = {}): void {
  element.innerHTML = tableHtml(state, maxSeats, names);
  for (const seat of element.querySelectorAll<HTMLElement>("li.seat[data-left]")) {
    seat.style.left = `${seat.dataset.left}%`;
    seat.style.top = `${seat.dataset.top}%`;
  }
}
