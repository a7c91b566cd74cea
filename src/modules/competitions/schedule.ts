/**
 * A round robin's schedule: rounds of disjoint pairs by the circle method. With n bots (a bye added
 * when n is odd) one repetition is n − 1 rounds in which every pair meets once and no bot plays
 * twice in a round; `matchesPerPair` repetitions follow each other, the seats swapped in every
 * other one (who sits first, and so who has the button first, alternates).
 */
export interface ScheduledMatch {
  /** 1-based. */
  round: number;
  botA: string;
  botB: string;
}

export function circleSchedule(botIds: string[], matchesPerPair: number): ScheduledMatch[] {
  const ring: Array<string | null> = [...botIds];
  if (ring.length % 2 === 1) ring.push(null);
  const n = ring.length;
  const schedule: ScheduledMatch[] = [];
  for (let repetition = 0; repetition < matchesPerPair; repetition++) {
    const order = [...ring];
    for (let r = 0; r < n - 1; r++) {
      const round = repetition * (n - 1) + r + 1;
      for (let i = 0; i < n / 2; i++) {
        const [a, b] = [order[i], order[n - 1 - i]];
        if (a === null || b === null) continue;
        const swap = (repetition + r + i) % 2 === 1;
        schedule.push({ round, botA: swap ? b : a, botB: swap ? a : b });
      }
      // Keep the first fixed, rotate the rest by one.
      order.splice(1, 0, order.pop()!);
    }
  }
  return schedule;
}

export function roundsOf(schedule: ScheduledMatch[]): number {
  return schedule.reduce((max, m) => Math.max(max, m.round), 0);
}
