import type { SeatState, SpectatorMessage } from "@poker-bots/protocol";
import { applyEvent, emptyTable, newHand, type TableState } from "./table-state";
import { drawTable } from "./table-view";
import { escapeHtml } from "../view-kit";
// The same wording as `cli watch`: one narrator for the terminal and the page.
import { TableNarrator } from "@poker-bots/sdk/narrator";

const data = JSON.parse(document.getElementById("page-data")!.textContent!) as {
  tableId: string;
  maxPlayers: number;
  seats: Array<{ seat: number; botId: string; chips: number }>;
  names: Record<string, string>;
};
const $ = (id: string) => document.getElementById(id)!;

let state: TableState = { ...emptyTable(), seats: newHand(0, null, data.seats.map((s) => ({ seat: s.seat, botId: s.botId, stack: s.chips }))).seats };
let handsSeen = 0;
let pending = false;
const log: string[] = [];
const narrator = new TableNarrator(new Map(Object.entries(data.names)));

/** Renders at most once per frame: a match of built-in bots sends hundreds of messages a second. */
function render(): void {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => {
    pending = false;
    drawTable($("table"), state, data.maxPlayers, data.names);
    $("hand").textContent = state.handNumber > 0 ? `hand ${state.handNumber}` : "waiting for the next hand";
    $("live").dataset.hand = String(state.handNumber);
    $("live").dataset.handsSeen = String(handsSeen);
    $("log").innerHTML = log.map((line) => `<li>${escapeHtml(line)}</li>`).join("");
  });
}

function note(line: string): void {
  log.unshift(line);
  log.length = Math.min(log.length, 30);
}

/** A hand's seats for the felt: a seat's bot is always known while it plays (null only in the protocol's type). */
const seated = (seats: SeatState[]) => seats.map((s) => ({ ...s, botId: s.botId ?? "" }));

function receive(message: SpectatorMessage): void {
  switch (message.type) {
    case "watching":
      state = { ...state, seats: newHand(0, null, message.table.seats.map((s) => ({ seat: s.seat, botId: s.botId, stack: s.chips }))).seats };
      $("status").textContent = message.table.status === "running" ? "live" : message.table.status;
      break;
    case "snapshot":
      // Opened mid-hand: the hand so far (public cards, bets, pot), not an empty felt until the next one.
      if (message.hand) {
        state = { ...newHand(message.handNumber, message.hand.button, seated(message.hand.seats)), street: message.hand.street, board: message.hand.board };
        handsSeen += 1;
      }
      break;
    case "match_started":
    case "match_resumed":
      $("status").textContent = "live";
      break;
    case "hand_started":
      handsSeen += 1;
      state = newHand(message.handNumber, message.button, seated(message.seats));
      break;
    case "action":
      // Blinds and antes are already in hand_started's bets.
      if (!["small_blind", "big_blind", "ante"].includes(message.action)) state = applyEvent(state, { ...message, type: "action" });
      break;
    case "street":
      state = applyEvent(state, message);
      break;
    case "hand_ended":
      for (const shown of message.showdown) state = applyEvent(state, { type: "show", seat: shown.seat, cards: shown.cards });
      for (const pot of message.pots) state = applyEvent(state, { type: "pot_awarded", amount: pot.amount, winners: pot.winners, shares: pot.shares });
      for (const s of message.stacks) {
        const seat = state.seats.find((x) => x.seat === s.seat);
        if (seat) seat.stack = s.stack;
      }
      break;
    case "match_ended":
      $("status").innerHTML = `match over · <a href="/matches/${encodeURIComponent(message.matchId)}">watch the replay</a>`;
      break;
    case "error":
      $("status").textContent = message.message;
      break;
  }
  if (message.type !== "watching" && message.type !== "error") for (const line of narrator.lines(message)) note(line);
  render();
}

let retryMs = 500;
function connect(): void {
  const socket = new WebSocket(`${location.origin.replace(/^http/, "ws")}/api/tables/${encodeURIComponent(data.tableId)}/watch`);
  socket.onopen = () => (retryMs = 500);
  socket.onmessage = (event) => receive(JSON.parse(String(event.data)));
  socket.onclose = (event) => {
    if (event.code === 4004 || event.code === 4029) return;
    // Reconnects by itself: a restart or a takeover by another node is a pause, not the end.
    $("status").textContent = `reconnecting in ${Math.round(retryMs / 1000)} s…`;
    setTimeout(connect, retryMs);
    retryMs = Math.min(10_000, retryMs * 2);
  };
}
render();
connect();
