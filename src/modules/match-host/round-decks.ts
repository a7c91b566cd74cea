/**
 * One deck secret for every match of a hosted round robin's round (docs/FAIRNESS.md, "Rounds"):
 * committed before the round's first match, every match of the round dealing hand n from its deck
 * n, revealed only when the round's last match has ended. Until then it rests sealed, as a running
 * match's secret does (deck-seal.ts; the round's key, not a match id, is the associated data), and
 * each match's record keeps it sealed too: its fairness record, its hands and its rating wait for
 * the round (match-finish.ts `holdSecret`).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/index";
import { matches, tournamentRounds } from "../../db/schema";
import { invariant } from "../../lib/assert";
import { deckCommitment } from "../../poker/fair-deck";
import type { DeckSeal } from "./deck-seal";

/** Which round's decks a table deals (its config's `dealRound`). */
export interface DealRound {
  tournamentId: string;
  round: number;
}

const roundKey = (deal: DealRound) => `${deal.tournamentId}/round/${deal.round}`;

export function drawDeckSecret(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
}

/** A new round's secret, committed (and sealed) before any of its matches is created; the commitment. */
export async function commitRound(db: Db, seal: DeckSeal, deal: DealRound, now: Date): Promise<string> {
  const secret = drawDeckSecret();
  const commitment = deckCommitment(secret);
  await db
    .insert(tournamentRounds)
    .values({ ...deal, deckCommitment: commitment, deckSecretSealed: await seal.seal(roundKey(deal), secret), startedAt: now })
    .onConflictDoNothing();
  const [row] = await db.select().from(tournamentRounds).where(and(eq(tournamentRounds.tournamentId, deal.tournamentId), eq(tournamentRounds.round, deal.round)));
  return row.deckCommitment!;
}

/** The round's secret, for a match of it that starts (or resumes) on this node. */
export async function roundSecret(db: Db, seal: DeckSeal, deal: DealRound): Promise<string> {
  const [row] = await db.select().from(tournamentRounds).where(and(eq(tournamentRounds.tournamentId, deal.tournamentId), eq(tournamentRounds.round, deal.round)));
  invariant(row !== undefined, `round ${roundKey(deal)} has no committed secret`);
  return row.deckSecret ?? seal.unseal(roundKey(deal), row.deckSecretSealed!);
}

/**
 * The round has ended (every match of it): its secret is revealed in its row and in every match's
 * record, the sealed copies dropped, and the matches to be rated are marked for the ratings applier
 * (`rated`: for a duplicate pair, one copy), in one transaction.
 */
export async function revealRound(db: Db, seal: DeckSeal, deal: DealRound, matchIds: string[], rated: string[], now: Date): Promise<string> {
  const secret = await roundSecret(db, seal, deal);
  await db.transaction(async (tx) => {
    await tx
      .update(tournamentRounds)
      .set({ deckSecret: secret, deckSecretSealed: null, endedAt: now })
      .where(and(eq(tournamentRounds.tournamentId, deal.tournamentId), eq(tournamentRounds.round, deal.round)));
    if (matchIds.length > 0) {
      await tx.update(matches).set({ deckSecret: secret, deckSecretSealed: null }).where(and(inArray(matches.id, matchIds), eq(matches.status, "completed")));
    }
    if (rated.length > 0) await tx.update(matches).set({ ratingPending: true }).where(and(inArray(matches.id, rated), sql`${matches.ratedSeq} is null`));
  });
  return secret;
}
