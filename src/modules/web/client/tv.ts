/**
 * /tv: plays the channel's program (web/tv.ts) at the server's moment: every viewer sees the same
 * action at the same time, and a page opened mid-hand shows the hand so far. One action every
 * `actionMs`; when the program ends, the next is fetched.
 */
import type { TvHand, TvProgram } from "../tv";
import { escapeHtml, shortId } from "../view-kit";
import { applyEvent, newHand, type TableEvent, type TableState } from "./table-state";
import { drawTable } from "./table-view";

const initial = JSON.parse(document.getElementById("page-data")!.textContent!) as { program: TvProgram | null; serverNow: number };
const $ = (id: string) => document.getElementById(id)!;
/** The server's clock minus ours: positions are computed on the server's time. */
let offset = initial.serverNow - Date.now();
let program = initial.program;
let framesCache: { handIndex: number; frames: TableState[] } | null = null;
let shownStep = -1;
let fetching = false;

function framesOf(hand: TvHand): TableState[] {
  const frames = [newHand(hand.handNumber, hand.button, hand.players.map((p) => ({ seat: p.seat, botId: p.botId, stack: p.startingStack })))];
  for (const event of hand.events) frames.push(applyEvent(frames[frames.length - 1], event as TableEvent));
  return frames;
}

/** Step `step` of the program as (hand, frame within it). */
function locate(p: TvProgram, step: number): { handIndex: number; frame: number } {
  let rest = step;
  for (let i = 0; i < p.hands.length; i++) {
    const size = p.hands[i].events.length + 1;
    if (rest < size) return { handIndex: i, frame: rest };
    rest -= size;
  }
  return { handIndex: p.hands.length - 1, frame: p.hands[p.hands.length - 1].events.length };
}

const minutes = (ms: number) => (ms < 90_000 ? `${Math.max(1, Math.round(ms / 1000))} s` : ms < 5_400_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);

function render(p: TvProgram, step: number): void {
  const { handIndex, frame } = locate(p, step);
  if (framesCache?.handIndex !== handIndex) framesCache = { handIndex, frames: framesOf(p.hands[handIndex]) };
  const frames = framesCache.frames;
  const hand = p.hands[handIndex];
  drawTable($("table"), frames[frame], p.maxPlayers, p.names);
  const players = [...new Set(hand.players.map((pl) => pl.botId))].map((id) => `<a href="/bots/${encodeURIComponent(id)}">${escapeHtml(p.names[id] ?? shortId(id))}</a>`).join(" vs ");
  $("tv-title").innerHTML = `${players} · <a href="/matches/${encodeURIComponent(p.matchId)}/hands/${hand.handNumber}">hand ${hand.handNumber}</a> of ${p.handsPlayed} (${handIndex + 1} of the ${p.hands.length} shown) · pairing rating ${p.pairingRating.toFixed(1)}`;
  // When this hand was really played, from the match's start and length: how far behind live TV is.
  const playedAt = Date.parse(p.matchStartedAt) + (p.matchDurationMs * (hand.handNumber - 1)) / Math.max(1, p.handsPlayed);
  $("tv-behind").textContent = `${p.picked === "best-pairing" ? "The best-rated pairing of the last minutes" : "The latest rated match"}; this hand was played about ${minutes(Date.now() + offset - playedAt)} ago.`;
  $("tv-log").innerHTML = frames
    .slice(1, frame + 1)
    .map((f) => `<li>${escapeHtml(f.note || "cards are dealt")}</li>`)
    .join("");
  const tv = $("tv");
  tv.dataset.match = p.matchId;
  tv.dataset.hand = String(hand.handNumber);
  tv.dataset.frame = String(frame);
  tv.dataset.step = String(step);
}

async function nextProgram(): Promise<void> {
  if (fetching) return;
  fetching = true;
  try {
    const response = await fetch("/tv/program.json", { cache: "no-store" });
    if (!response.ok) return;
    const body = (await response.json()) as { program: TvProgram | null; serverNow: number };
    offset = body.serverNow - Date.now();
    if (body.program && (body.program.matchId !== program?.matchId || body.program.startsAt !== program?.startsAt)) {
      program = body.program;
      framesCache = null;
      shownStep = -1;
    }
  } finally {
    fetching = false;
  }
}

function tick(): void {
  const p = program;
  if (!p) return void nextProgram();
  const step = Math.floor((Date.now() + offset - p.startsAt) / p.actionMs);
  if (step >= p.frames) return void nextProgram();
  const shown = Math.max(0, step);
  if (shown !== shownStep) {
    shownStep = shown;
    render(p, shown);
  }
}

tick();
setInterval(tick, 200);
