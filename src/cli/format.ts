import type { SpectatorMessage } from "../../packages/sdk/src/index.ts";

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** Turns a table's public messages into readable lines ("hand 3 · seat 1 (my-bot) raises to 60"). */
export class TableNarrator {
  private readonly seatBot = new Map<number, string>();

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
          `watching table ${t.tableId} · ${t.status} · ${t.seats.length}/${t.config.maxPlayers} seats · blinds ${t.config.smallBlind}/${t.config.bigBlind} · up to ${t.config.maxHands} hands` +
            (t.status === "waiting" ? " · the match starts when every seat is taken" : ""),
        ];
      }
      case "match_started":
        for (const s of message.seats) this.seatBot.set(s.seat, s.botId);
        return [`match ${message.matchId} started · ${message.seats.map((s) => `${this.who(s.seat, s.botId)} ${s.stack}`).join(", ")}`];
      case "hand_started":
        for (const s of message.seats) if (s.botId) this.seatBot.set(s.seat, s.botId);
        return [`hand ${message.handNumber} · button seat ${message.button} · blinds ${message.smallBlind}/${message.bigBlind}`];
      case "action": {
        const allIn = message.allIn ? " (all in)" : "";
        const verb =
          message.action === "small_blind" ? `posts the small blind ${message.amount}`
          : message.action === "big_blind" ? `posts the big blind ${message.amount}`
          : message.action === "ante" ? `posts an ante ${message.amount}`
          : message.action === "raise" ? `raises to ${message.amount}`
          : message.action === "call" ? `calls ${message.amount}`
          : message.action === "check" ? "checks"
          : "folds";
        return [`hand ${message.handNumber} · ${this.who(message.seat, message.botId)} ${verb}${allIn}`];
      }
      case "street":
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
}

export { signed };
