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
  /** Its uploaded code plays it: it takes one of its developer's hosted seats (GroupRules.hostedSeatsLeft). */
  hosted?: boolean;
}

/** How often two bots have met on the ladder (in this format). */
export type Meetings = (a: string, b: string) => number;

/**
 * How often `a` may meet one opponent before another is preferred: twice what uniform pairing
 * among `available` bots would give it after its next match, and at least once. Under this cap a
 * bot meets the closest-rated opponents first; past it, the next closest. So ratings stay close
 * while no pair meets more than about twice as often as uniform pairing would have them meet.
 * At a table of `size` a bot meets `size − 1` opponents a match, so uniform pairing gives each
 * pair `m·(size − 1)/(n − 1)` meetings (a six-max newcomer alone with five house bots meets each
 * of them every match: the cap must allow it).
 */
export function meetingCap(matchesPlayed: number, available: number, size = 2): number {
  if (available < 2) return Infinity;
  return Math.max(1, Math.floor((2 * (matchesPlayed + 1) * Math.min(size - 1, available - 1)) / (available - 1)));
}

/** What else decides who may sit together, besides the caps (all optional: without them, every developer apart). */
export interface GroupRules {
  /**
   * The house's developer id: its bots may sit together (independent built-ins, no shared
   * knowledge), but a group is never the house's alone. Every other developer: one bot a group.
   */
  house?: string;
  /** Pairs that must not meet now (a developer who has won the house's daily limit, and the house's bots). */
  apart?: (a: Candidate, b: Candidate) => boolean;
  /** How many more buy-ins each developer can pay this round (a group that needs one more is not formed). */
  seatsAffordable?: (developerId: string) => number;
  /** How many more seats each developer's hosted bots may take this round (MAX_HOSTED_SEATS_PER_DEVELOPER). */
  hostedSeatsLeft?: (developerId: string) => number;
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
  options: { population?: number; entriesOf?: (developerId: string) => number; now?: number; patienceMs?: number } & GroupRules = {},
): Candidate[][] {
  const everyone = Math.max(options.population ?? 0, candidates.length);
  const own = (developerId: string) => Math.max(1, options.entriesOf?.(developerId) ?? candidates.filter((c) => c.developerId === developerId).length);
  // Uniform pairing among the opponents a bot may meet: everyone but its own developer's bots (the house's meet each other at larger tables).
  const population = (c: Candidate) => (c.developerId === options.house && size > 2 ? everyone : everyone - own(c.developerId) + 1);
  const budget = new Map<string, number>();
  const affordable = (developerId: string) => budget.get(developerId) ?? options.seatsAffordable?.(developerId) ?? Infinity;
  const hostedBudget = new Map<string, number>();
  const hostedLeft = (developerId: string) => hostedBudget.get(developerId) ?? options.hostedSeatsLeft?.(developerId) ?? Infinity;
  const mayTake = (c: Candidate) => !c.hosted || hostedLeft(c.developerId) >= 1;
  const rules: GroupRules & { affordable: (developerId: string) => number; mayTake: (c: Candidate) => boolean } = { ...options, affordable, mayTake };
  const pool = [...candidates].sort((a, b) => a.waitingSince - b.waitingSince || a.botId.localeCompare(b.botId));
  const groups: Candidate[][] = [];
  for (let i = 0; i < pool.length; ) {
    // Past its patience a bot takes an opponent over the cap rather than wait on (rare with ten or more free).
    const patient = options.now === undefined || options.now - pool[i].waitingSince < (options.patienceMs ?? Infinity);
    const group = affordable(pool[i].developerId) >= 1 && mayTake(pool[i]) ? groupAround(pool[i], pool, size, meetings, population, !patient, rules) : null;
    if (!group) {
      i += 1;
      continue;
    }
    groups.push(group);
    for (const member of group) {
      pool.splice(pool.indexOf(member), 1);
      budget.set(member.developerId, affordable(member.developerId) - 1);
      if (member.hosted) hostedBudget.set(member.developerId, hostedLeft(member.developerId) - 1);
    }
  }
  return groups;
}

/**
 * The anchor's group: each next member keeps every pair under its cap (both bots' caps count), and
 * is the closest in rating to the anchor among those that do. `overCapAllowed`: the anchor has
 * waited past its patience, so the fewest meetings past the cap are taken instead of waiting.
 */
function groupAround(
  anchor: Candidate,
  pool: Candidate[],
  size: number,
  meetings: Meetings,
  population: (c: Candidate) => number,
  overCapAllowed: boolean,
  rules: GroupRules & { affordable: (developerId: string) => number; mayTake: (c: Candidate) => boolean },
): Candidate[] | null {
  const group = [anchor];
  const isHouse = (c: Candidate) => rules.house !== undefined && c.developerId === rules.house;
  while (group.length < size) {
    const developers = new Set(group.filter((c) => !isHouse(c)).map((c) => c.developerId));
    // The last seat of a group of house bots only: it must be someone else's.
    const needsOther = group.length === size - 1 && group.every(isHouse);
    const houseSeats = group.filter(isHouse).length;
    let best: Candidate | null = null;
    let bestKey: number[] = [Infinity];
    for (const candidate of pool) {
      if (group.includes(candidate) || developers.has(candidate.developerId)) continue;
      if (needsOther && isHouse(candidate)) continue;
      if (rules.affordable(candidate.developerId) < (isHouse(candidate) ? houseSeats + 1 : 1)) continue;
      if (!rules.mayTake(candidate)) continue;
      if (rules.apart && group.some((member) => rules.apart!(member, candidate))) continue;
      let overCap = 0;
      let excess = 0;
      for (const member of group) {
        const cap = Math.min(meetingCap(member.matchesPlayed, population(member), size), meetingCap(candidate.matchesPlayed, population(candidate), size));
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
