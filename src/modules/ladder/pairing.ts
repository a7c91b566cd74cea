/**
 * Who plays whom on the ladder: a pure function of who is available now, their ratings, how long
 * each has waited, and how often each pair has met. docs/LADDER.md says why it is this way.
 */

export interface Candidate {
  botId: string;
  developerId: string;
  /** The conservative rating (mu − 3·sigma); a bot never rated has the prior's. */
  rating: number;
  /** When it last became free (or entered): the longest waiting is paired first. */
  waitingSince: number;
  /** Ladder matches it has played in this format (its share of meetings grows with them). */
  matchesPlayed: number;
}

/** How often two bots have met on the ladder (in this format). */
export type Meetings = (a: string, b: string) => number;

/**
 * How often `a` may meet one opponent before another is preferred: twice what uniform pairing
 * among `available` bots would give it after its next match, and at least once. Under this cap a
 * bot meets the closest-rated opponents first; past it, the next closest. So ratings stay close
 * while no pair meets more than about twice as often as uniform pairing would have them meet.
 */
export function meetingCap(matchesPlayed: number, available: number): number {
  if (available < 2) return Infinity;
  return Math.max(1, Math.floor((2 * (matchesPlayed + 1)) / (available - 1)));
}

/**
 * Groups of `size` bots (2 heads-up, 6 six-max), never two of one developer in a group (a ladder
 * match is always rated). The bot that has waited longest anchors the next group. `population`:
 * the bots entered and playing in the format (free now or at a table), among whom uniform pairing
 * is counted. A bot that cannot be grouped now (too few other developers free, or only opponents it
 * has met as often as the cap allows) waits for the next round, up to `patienceMs` past `now`.
 */
export function pairings(
  candidates: Candidate[],
  size: number,
  meetings: Meetings,
  options: { population?: number; entriesOf?: (developerId: string) => number; now?: number; patienceMs?: number } = {},
): Candidate[][] {
  const everyone = Math.max(options.population ?? 0, candidates.length);
  const own = (developerId: string) => Math.max(1, options.entriesOf?.(developerId) ?? candidates.filter((c) => c.developerId === developerId).length);
  // Uniform pairing among the opponents a bot may meet: everyone but its own developer's bots.
  const population = (c: Candidate) => everyone - own(c.developerId) + 1;
  const pool = [...candidates].sort((a, b) => a.waitingSince - b.waitingSince || a.botId.localeCompare(b.botId));
  const groups: Candidate[][] = [];
  for (let i = 0; i < pool.length; ) {
    // Past its patience a bot takes an opponent over the cap rather than wait on (rare with ten or more free).
    const patient = options.now === undefined || options.now - pool[i].waitingSince < (options.patienceMs ?? Infinity);
    const group = groupAround(pool[i], pool, size, meetings, population, !patient);
    if (!group) {
      i += 1;
      continue;
    }
    groups.push(group);
    for (const member of group) pool.splice(pool.indexOf(member), 1);
  }
  return groups;
}

/**
 * The anchor's group: each next member keeps every pair under its cap (both bots' caps count), and
 * is the closest in rating to the anchor among those that do. `overCapAllowed`: the anchor has
 * waited past its patience, so the fewest meetings past the cap are taken instead of waiting.
 */
function groupAround(anchor: Candidate, pool: Candidate[], size: number, meetings: Meetings, population: (c: Candidate) => number, overCapAllowed: boolean): Candidate[] | null {
  const group = [anchor];
  while (group.length < size) {
    const developers = new Set(group.map((c) => c.developerId));
    let best: Candidate | null = null;
    let bestKey: number[] = [Infinity];
    for (const candidate of pool) {
      if (developers.has(candidate.developerId)) continue;
      let overCap = 0;
      let excess = 0;
      for (const member of group) {
        const cap = Math.min(meetingCap(member.matchesPlayed, population(member)), meetingCap(candidate.matchesPlayed, population(candidate)));
        const met = meetings(member.botId, candidate.botId);
        if (met >= cap) [overCap, excess] = [overCap + 1, excess + met - cap + 1];
      }
      if (overCap > 0 && !overCapAllowed) continue;
      const key = [overCap, excess, Math.abs(candidate.rating - anchor.rating)];
      if (lexicallyBefore(key, bestKey)) [best, bestKey] = [candidate, key];
    }
    if (!best) return null;
    group.push(best);
  }
  return group;
}

function lexicallyBefore(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < (b[i] ?? Infinity);
  return false;
}

/** Counts meetings per pair (the matchmaker's memory), for `Meetings`. */
export class MeetingCounts {
  private readonly counts = new Map<string, number>();

  private static key(a: string, b: string): string {
    return a < b ? `${a}|${b}` : `${b}|${a}`;
  }

  get: Meetings = (a, b) => this.counts.get(MeetingCounts.key(a, b)) ?? 0;

  /** Every pair of a group met once more. */
  met(botIds: string[]): void {
    for (let i = 0; i < botIds.length; i++) {
      for (let j = i + 1; j < botIds.length; j++) {
        const key = MeetingCounts.key(botIds[i], botIds[j]);
        this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      }
    }
  }
}
