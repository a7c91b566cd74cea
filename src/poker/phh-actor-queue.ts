/**
 * The betting queue a strict PHH reader (pokerkit) keeps, so the exporter can write the checks the
 * engine never asks for. The engine closes a betting round as soon as nobody is left who could bet
 * against a player; pokerkit still asks every player left in its queue, who then can only check
 * ("no-choice checks"). Written for pokerkit's rules (State._begin_betting, get_effective_stack,
 * complete_bet_or_raise_to): indices are PHH player numbers minus one.
 */
export class PhhActorQueue {
  private readonly stacks: number[];
  private readonly bets: number[];
  private readonly inHand: boolean[];
  private queue: number[] = [];

  constructor(startingStacks: number[]) {
    this.stacks = startingStacks.slice();
    this.bets = startingStacks.map(() => 0);
    this.inHand = startingStacks.map(() => true);
  }

  /** Antes go straight to the pot; blinds are bets. */
  post(player: number, amount: number, isBet: boolean): void {
    this.stacks[player] -= amount;
    if (isBet) this.bets[player] += amount;
  }

  /** A betting round opens: who pokerkit will ask, from the player after the largest bet. */
  beginBetting(): void {
    const n = this.stacks.length;
    let largest = 0;
    for (let i = 1; i < n; i++) if (this.bets[i] >= this.bets[largest]) largest = i;
    const order = rotated(n, (largest + 1) % n);
    this.queue = order.filter((i) => this.inHand[i] && this.stacks[i] > 0 && this.effectiveStack(i) > 0);
    if (this.queue.length === 1 && this.bets[this.queue[0]] >= Math.max(...this.bets)) this.queue = [];
  }

  /** `amount`: chips a check or call added (as the engine played it), or the street total a raise went to. */
  act(player: number, verb: "f" | "cc" | "cbr", amount: number): void {
    this.queue = this.queue.filter((i) => i !== player);
    if (verb === "f") {
      this.inHand[player] = false;
      if (this.inHand.filter(Boolean).length <= 1) this.queue = [];
    } else if (verb === "cc") {
      this.stacks[player] -= amount;
      this.bets[player] += amount;
    } else {
      const raiseTo = amount;
      this.stacks[player] -= raiseTo - this.bets[player];
      this.bets[player] = raiseTo;
      this.queue = rotated(this.stacks.length, player + 1).filter((i) => i !== player && this.inHand[i] && this.stacks[i] > 0);
    }
  }

  uncalledReturned(player: number, amount: number): void {
    this.stacks[player] += amount;
    this.bets[player] -= amount;
  }

  /**
   * Betting closed in the engine: the players pokerkit would still ask, in its order, when the
   * engine closed because nobody was left to bet against them; bets go to the pot.
   */
  closeBetting(): number[] {
    let withChips = 0;
    for (let i = 0; i < this.stacks.length; i++) if (this.inHand[i] && this.stacks[i] > 0) withChips++;
    const waiting = withChips < 2 ? this.queue.filter((i) => this.inHand[i] && this.stacks[i] > 0) : [];
    this.queue = [];
    this.bets.fill(0);
    return waiting;
  }

  /** pokerkit's effective stack: what a player could still lose to the second-deepest player in the hand. */
  private effectiveStack(player: number): number {
    const totals: number[] = [];
    for (let i = 0; i < this.stacks.length; i++) if (this.inHand[i]) totals.push(this.bets[i] + this.stacks[i]);
    if (totals.length < 2) return 0;
    totals.sort((a, b) => a - b);
    return Math.min(this.stacks[player], Math.max(0, totals[totals.length - 2] - this.bets[player]));
  }
}

function rotated(n: number, first: number): number[] {
  return Array.from({ length: n }, (_, i) => (first + i) % n);
}
