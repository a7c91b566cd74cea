// Only message types: the web page bundles this narrator, and the SDK's index pulls in Node modules.
import type { SpectatorMessage } from "./messages.ts";

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/**
 * Turns a table's public messages into readable lines, as `cli watch`, `cli play --verbose` and the
 * live page tell them ("hand 3 · seat 1 (my-bot) raises to 60").
 */
export class TableNarrator {
  private readonly seatBot = new Map<number, string>();
  /** The highest bet on the current street: a raise with nothing to raise is an opening bet. */
  private streetBet = 0;

  constructor(private readonly names: Map<string, string> = new Map()) {}

  label(botId: string | null | undefined): string {
    if (!botId) return "?";
    return this.names.get(botId) ?? botId;
  }

  private who(seat: number, botId?: string | null): string {
    const id = botId ?? this.seatBot.get(seat);
    return id ? `seat ${seat} (${this.label(id)})` : `seat ${seat}`;
  }

  lines(message: SpectatorMessage): string[] {
    switch (message.type) {
      case "watching": {
        const t = message.table;
        for (const s of t.seats) this.seatBot.set(s.seat, s.botId);
        return [
          // A watcher that arrives after match_started learns the match's id here.
          `watching table ${t.tableId} · ${t.status}${t.status === "running" && t.matchId ? ` · match ${t.matchId}` : ""} · ${t.seats.length}/${t.config.maxPlayers} seats · blinds ${t.config.smallBlind}/${t.config.bigBlind} · up to ${t.config.maxHands} hands` +
            (t.status === "waiting" ? " · the match starts when every seat is taken" : ""),
        ];
      }
      case "snapshot": {
        // A watcher that arrives mid-hand: where the hand stands.
        const hand = message.hand;
        if (!hand) return [];
        for (const s of hand.seats) if (s.botId) this.seatBot.set(s.seat, s.botId);
        this.streetBet = Math.max(0, ...hand.seats.map((s) => s.bet));
        return [`hand ${message.handNumber} in play · ${hand.street}${hand.board.length ? `: ${hand.board.join(" ")}` : ""} · pot ${hand.pot}`];
      }
      case "match_started":
        for (const s of message.seats) this.seatBot.set(s.seat, s.botId);
        return [`match ${message.matchId} started · ${message.seats.map((s) => `${this.who(s.seat, s.botId)} ${s.stack}`).join(", ")}`];
      case "hand_started":
        this.streetBet = 0;
        for (const s of message.seats) if (s.botId) this.seatBot.set(s.seat, s.botId);
        return [`hand ${message.handNumber} · button seat ${message.button} · blinds ${message.smallBlind}/${message.bigBlind}`];
      case "action": {
        const verb = this.actionVerb(message.action, message.amount);
        return [`hand ${message.handNumber} · ${this.who(message.seat, message.botId)} ${verb}${message.allIn ? " (all in)" : ""}`];
      }
      case "street":
        this.streetBet = 0;
        return [`hand ${message.handNumber} · ${message.street}: ${message.board.join(" ")}`];
      case "hand_ended": {
        const lines: string[] = [];
        const shown = new Map(message.showdown.map((s) => [s.seat, s]));
        for (const s of message.showdown) lines.push(`hand ${message.handNumber} · ${this.who(s.seat, s.botId)} shows ${s.cards.join(" ")}: ${s.hand}`);
        for (const pot of message.pots) {
          pot.winners.forEach((seat, i) => {
            const how = shown.get(seat) ? `with ${shown.get(seat)!.hand}` : "uncontested";
            const split = pot.winners.length > 1 ? " (split)" : "";
            const botId = message.stacks.find((s) => s.seat === seat)?.botId;
            lines.push(`hand ${message.handNumber} · ${this.who(seat, botId)} wins ${pot.shares[i]}${split} ${how}`);
          });
        }
        lines.push(`hand ${message.handNumber} · stacks: ${message.stacks.map((s) => `${this.label(s.botId)} ${s.stack}`).join(", ")}`);
        return lines;
      }
      case "match_ended": {
        const most = Math.max(...message.players.map((p) => p.finalChips));
        const winners = message.players.filter((p) => p.finalChips === most).map((p) => this.label(p.botId));
        return [
          `match over after ${message.handsPlayed} hands`,
          ...message.players.map((p) => `  ${this.label(p.botId)}: ${p.finalChips} chips (${signed(p.profit)})`),
          `winner: ${winners.join(", ")}`,
        ];
      }
      case "error":
        return [`error ${message.code}: ${message.message}`];
      default:
        return [];
    }
  }

  /** `amount` is what the protocol says: raise-to for raises, chips put in for calls and blinds. */
  actionVerb(action: string, amount: number): string {
    switch (action) {
      case "small_blind":
        return `posts the small blind ${amount}`;
      case "big_blind":
        this.streetBet = Math.max(this.streetBet, amount);
        return `posts the big blind ${amount}`;
      case "ante":
        return `posts an ante ${amount}`;
      case "raise": {
        const opening = this.streetBet === 0;
        this.streetBet = Math.max(this.streetBet, amount);
        return opening ? `bets ${amount}` : `raises to ${amount}`;
      }
      case "call":
        return `calls ${amount}`;
      case "check":
        return "checks";
      default:
        return "folds";
    }
  }

  /** A recorded hand (GET /api/matches/:id/hands) as the same readable lines. */
  handLines(hand: RecordedHand): string[] {
    for (const p of hand.players) this.seatBot.set(p.seat, p.botId);
    this.streetBet = 0;
    const prefix = `hand ${hand.handNumber} · `;
    const lines = [`${prefix}button seat ${hand.button} · blinds ${hand.smallBlind}/${hand.bigBlind} · ${hand.players.map((p) => `${this.who(p.seat)} ${p.startingStack}`).join(", ")}`];
    for (const e of hand.events) {
      const seat = e.seat as number;
      if (e.type === "ante") lines.push(prefix + `${this.who(seat)} ${this.actionVerb("ante", e.amount as number)}`);
      else if (e.type === "blind") lines.push(prefix + `${this.who(seat)} ${this.actionVerb(e.blind === "small" ? "small_blind" : "big_blind", e.amount as number)}`);
      else if (e.type === "hole_cards" && e.cards) lines.push(prefix + `${this.who(seat)} is dealt ${(e.cards as string[]).join(" ")}`);
      else if (e.type === "action") lines.push(prefix + `${this.who(seat)} ${this.actionVerb(e.action as string, e.amount as number)}${e.allIn ? " (all in)" : ""}`);
      else if (e.type === "street") {
        this.streetBet = 0;
        lines.push(prefix + `${e.street}: ${(e.board as string[]).join(" ")}`);
      } else if (e.type === "uncalled_returned") lines.push(prefix + `${e.amount} uncalled returned to ${this.who(seat)}`);
      else if (e.type === "show") lines.push(prefix + `${this.who(seat)} shows ${(e.cards as string[]).join(" ")}`);
      else if (e.type === "muck") lines.push(prefix + `${this.who(seat)} mucks`);
      else if (e.type === "pot_awarded")
        (e.winners as number[]).forEach((winner, i) => lines.push(prefix + `${this.who(winner)} wins ${(e.shares as number[])[i]}${(e.winners as number[]).length > 1 ? " (split)" : ""}`));
    }
    lines.push(prefix + `stacks: ${hand.players.map((p) => `${this.label(p.botId)} ${p.finalStack} (${signed(p.finalStack - p.startingStack)})`).join(", ")}`);
    return lines;
  }
}

/** A hand as GET /api/matches/:id/hands returns it. */
export interface RecordedHand {
  handNumber: number;
  button: number;
  smallBlind: number;
  bigBlind: number;
  players: Array<{ seat: number; botId: string; startingStack: number; finalStack: number }>;
  board: string[];
  events: Array<Record<string, unknown> & { type: string }>;
}

export { signed };
