/**
 * One hand at a table, as events happen: shared by the replay viewer (stored hand events) and the
 * live page (spectator messages mapped to the same events). Pure: state in, state out.
 */

export interface SeatState {
  seat: number;
  botId: string;
  stack: number;
  bet: number;
  committed: number;
  folded: boolean;
  cards: Array<string | null> | null;
  last: string;
  won: number;
}

export interface TableState {
  handNumber: number;
  button: number | null;
  street: string;
  board: string[];
  seats: SeatState[];
  /** Chips in the middle: everything committed and not yet awarded. */
  pot: number;
  /** Side pots once awarded (amount and winners), in order. */
  pots: Array<{ amount: number; winners: number[] }>;
  note: string;
}

/** A hand event in the stored history's JSON form (cards by name, null when hidden). */
export type TableEvent = { type: string; seat?: number; [key: string]: unknown };

export function emptyTable(): TableState {
  return { handNumber: 0, button: null, street: "", board: [], seats: [], pot: 0, pots: [], note: "" };
}

export function newHand(handNumber: number, button: number | null, seats: Array<{ seat: number; botId: string; stack: number; bet?: number; committed?: number; folded?: boolean }>): TableState {
  const state = { ...emptyTable(), handNumber, button, street: "preflop" };
  state.seats = seats.map((s) => ({ seat: s.seat, botId: s.botId, stack: s.stack, bet: s.bet ?? 0, committed: s.committed ?? 0, folded: s.folded ?? false, cards: null, last: "", won: 0 }));
  state.pot = state.seats.reduce((sum, s) => sum + s.committed, 0);
  return state;
}

const put = (seat: SeatState, chips: number) => {
  seat.stack -= chips;
  seat.bet += chips;
  seat.committed += chips;
};

/** The state after `event` (a copy: earlier states stay as they were, so a viewer can step back). */
export function applyEvent(previous: TableState, event: TableEvent): TableState {
  const state: TableState = { ...previous, seats: previous.seats.map((s) => ({ ...s })), pots: [...previous.pots] };
  const seat = state.seats.find((s) => s.seat === event.seat);
  const amount = Number(event.amount ?? 0);
  switch (event.type) {
    case "ante":
    case "blind":
      if (seat) {
        put(seat, amount);
        seat.last = event.type === "ante" ? `ante ${amount}` : `${event.blind} blind ${amount}`;
      }
      break;
    case "hole_cards":
      if (seat) seat.cards = (event.cards as string[] | null) ?? [null, null];
      break;
    case "action":
      if (!seat) break;
      if (event.action === "fold") seat.folded = true;
      else if (event.action === "call") put(seat, amount);
      // A raise's amount is what the seat's bet becomes (raise to).
      else if (event.action === "raise") put(seat, amount - seat.bet);
      seat.last = actionText(String(event.action), amount, Boolean(event.allIn), previous);
      break;
    case "street":
      state.street = String(event.street);
      state.board = (event.board as string[]) ?? state.board;
      for (const s of state.seats) {
        s.bet = 0;
        s.last = "";
      }
      break;
    case "uncalled_returned":
      if (seat) {
        seat.stack += amount;
        seat.bet -= amount;
        seat.committed -= amount;
      }
      break;
    case "show":
      if (seat) {
        seat.cards = event.cards as string[];
        seat.last = "shows";
      }
      break;
    case "muck":
      if (seat) seat.last = "mucks";
      break;
    case "pot_awarded": {
      const winners = event.winners as number[];
      const shares = event.shares as number[];
      winners.forEach((w, i) => {
        const winner = state.seats.find((s) => s.seat === w);
        if (winner) {
          winner.stack += shares[i];
          winner.won += shares[i];
        }
      });
      state.pots.push({ amount, winners });
      for (const s of state.seats) s.bet = 0;
      state.street = "showdown";
      break;
    }
    case "hand_finished":
      state.street = "finished";
      break;
  }
  state.pot = state.seats.reduce((sum, s) => sum + s.committed, 0) - state.pots.reduce((sum, p) => sum + p.amount, 0);
  state.note = describe(event, state);
  return state;
}

function actionText(action: string, amount: number, allIn: boolean, before: TableState): string {
  const facing = Math.max(...before.seats.map((s) => s.bet));
  const text =
    action === "raise" ? (facing === 0 ? `bets ${amount}` : `raises to ${amount}`) : action === "call" ? `calls ${amount}` : `${action}s`;
  return allIn ? `${text} (all in)` : text;
}

function describe(event: TableEvent, state: TableState): string {
  const who = (seat: unknown) => `seat ${seat}`;
  switch (event.type) {
    case "blind":
    case "ante":
    case "action":
      return `${who(event.seat)} ${state.seats.find((s) => s.seat === event.seat)?.last ?? ""}`;
    case "street":
      return `${event.street}: ${(event.cards as string[]).join(" ")}`;
    case "show":
      return `${who(event.seat)} shows ${(event.cards as string[]).join(" ")}`;
    case "muck":
      return `${who(event.seat)} mucks`;
    case "uncalled_returned":
      return `${event.amount} uncalled returned to ${who(event.seat)}`;
    case "pot_awarded":
      return `${(event.winners as number[]).map(who).join(" and ")} win${(event.winners as number[]).length > 1 ? "" : "s"} ${event.amount}`;
    case "hand_finished":
      return `hand ${state.handNumber} over`;
    default:
      return "";
  }
}
