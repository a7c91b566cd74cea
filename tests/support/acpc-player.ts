/**
 * A clean-room ACPC player (protocol 2.0.0), written from the protocol alone: it reads the game
 * definition, greets with VERSION:2.0.0, works out from each MATCHSTATE line whether it must act
 * (as the ACPC example player does: whose turn is not in the message) and answers a random legal
 * action — folds, calls and raises, minimum raises and all-ins included — as `<state>:<action>`.
 */
import type { Socket } from "bun";
import { seededRng } from "@poker-bots/core/rng";

export interface GameDefinition {
  players: number;
  stack: number;
  blinds: number[];
  firstPlayer: number[];
}

export function parseGameDefinition(text: string): GameDefinition {
  const value = (key: string) => {
    const line = text.split("\n").find((l) => l.trim().toLowerCase().startsWith(key.toLowerCase()));
    if (!line) throw new Error(`game definition without ${key}`);
    return line.split("=")[1]!.trim().split(/\s+/).map(Number);
  };
  if (!/^nolimit$/m.test(text)) throw new Error("not a no-limit game");
  return { players: value("numPlayers")[0]!, stack: value("stack")[0]!, blinds: value("blind"), firstPlayer: value("firstPlayer") };
}

export interface ParsedState {
  position: number;
  hand: number;
  betting: string;
  cards: string;
  /** Null when the player must not act now. */
  turn: { toCall: number; canRaise: boolean; minRaiseTo: number; maxRaiseTo: number } | null;
}

/** Replays a state's betting under the game definition: who acts now, and what it may do. */
export function parseState(line: string, game: GameDefinition): ParsedState {
  const [tag, position, hand, betting, ...rest] = line.split(":");
  if (tag !== "MATCHSTATE" || betting === undefined) throw new Error(`not a state: ${line}`);
  const me = Number(position);
  const n = game.players;
  const spent = [...game.blinds];
  const folded = new Array<boolean>(n).fill(false);
  const rounds = betting.split("/");
  let actor = -1;
  let closed = false;
  let maxBet = 0;
  let lastRaise = 0;
  const bigBlind = Math.max(...game.blinds);
  const canAct = (p: number) => !folded[p] && spent[p]! < game.stack;
  const next = (from: number) => {
    for (let step = 1; step <= n; step++) if (canAct((from + step) % n)) return (from + step) % n;
    return -1;
  };
  for (let r = 0; r < rounds.length; r++) {
    maxBet = Math.max(...spent);
    lastRaise = bigBlind;
    const first = game.firstPlayer[r]! - 1;
    actor = canAct(first) ? first : next(first);
    const pendingActs = new Set<number>();
    for (let p = 0; p < n; p++) if (canAct(p)) pendingActs.add(p);
    const moves = rounds[r]!.match(/f|c|r\d+/g) ?? [];
    for (const move of moves) {
      if (move === "f") folded[actor] = true;
      else if (move === "c") spent[actor] = Math.min(maxBet, game.stack);
      else {
        const to = Number(move.slice(1));
        lastRaise = Math.max(lastRaise, to - maxBet);
        maxBet = to;
        spent[actor] = to;
        for (let p = 0; p < n; p++) if (canAct(p)) pendingActs.add(p);
      }
      pendingActs.delete(actor);
      actor = next(actor);
    }
    const live = folded.filter((f) => !f).length;
    const owed = [...pendingActs].filter(canAct);
    const able = [...Array(n).keys()].filter(canAct);
    closed = live <= 1 || owed.length === 0 || (able.length === 1 && spent[able[0]!]! >= maxBet);
  }
  const turn =
    !closed && actor === me
      ? {
          toCall: maxBet - spent[me]!,
          canRaise: game.stack > maxBet,
          minRaiseTo: Math.min(game.stack, maxBet + lastRaise),
          maxRaiseTo: game.stack,
        }
      : null;
  return { position: me, hand: Number(hand), betting, cards: rest.join(":"), turn };
}

/** A seeded source of uniform numbers in [0, 1) (the service's own seeded PRNG). */
export function seeded(seed: number): () => number {
  const rng = seededRng(seed);
  return () => rng.nextUint32() / 4_294_967_296;
}

/** The example player's mix: fold ~6 % (only when it costs), call ~47 %, raise ~47 % uniform over the legal range. */
export function randomAction(turn: NonNullable<ParsedState["turn"]>, random: () => number): string {
  const roll = random();
  if (roll < 0.06 && turn.toCall > 0) return "f";
  if (roll < 0.53 || !turn.canRaise) return "c";
  return `r${turn.minRaiseTo + Math.floor(random() * (turn.maxRaiseTo - turn.minRaiseTo + 1))}`;
}

export interface PlayerLog {
  /** Every state line received, in order. */
  states: string[];
  /** Every answer sent: the state it answered and the action. */
  answers: { state: string; action: string }[];
  closed: Promise<void>;
}

/**
 * Connects, greets, and answers every state where it must act with `decide` (a string: the whole
 * line to send instead, for bad lines; null: stay silent). Resolves `closed` when the server ends it.
 */
export async function runAcpcPlayer(
  host: string,
  port: number,
  game: GameDefinition,
  decide: (state: ParsedState, line: string) => string | null,
): Promise<PlayerLog & { socket: Socket<undefined> }> {
  const log: PlayerLog = { states: [], answers: [], closed: Promise.resolve() };
  let buffer = "";
  let closedResolve = () => {};
  log.closed = new Promise<void>((resolve) => (closedResolve = resolve));
  const socket = await Bun.connect({
    hostname: host,
    port,
    socket: {
      data(socket, chunk) {
        buffer += chunk.toString();
        for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
          const line = buffer.slice(0, end).replace(/\r$/, "");
          buffer = buffer.slice(end + 1);
          log.states.push(line);
          const state = parseState(line, game);
          if (!state.turn) continue;
          const reply = decide(state, line);
          if (reply === null) continue;
          if (reply.startsWith("MATCHSTATE") || reply.includes("\n") || !/^(f|c|r\d+)$/.test(reply)) socket.write(`${reply}\r\n`);
          else {
            log.answers.push({ state: line, action: reply });
            socket.write(`${line}:${reply}\r\n`);
          }
        }
      },
      close() {
        closedResolve();
      },
      error() {
        closedResolve();
      },
    },
  });
  // The example player sends its version with "\n" only.
  socket.write("VERSION:2.0.0\n");
  return { ...log, socket };
}
