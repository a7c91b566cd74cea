import { sql } from "drizzle-orm";
import type { Db } from "../../db";
import { assertLease, type FenceToken } from "../cluster/lease";
import { currentCodeVersions, pinnedCodeVersions, type CodeVersion } from "../hosted/code-store";
import type { HostedPlay, MatchPlayers } from "../hosted/players";
import { seatsInOrder, type TableRuntime } from "../tables/runtime";

/**
 * A table's hosted seats for one run of its match (issue 27, docs/HOSTED.md). At a match's start
 * every seat that is not a built-in and whose bot has uploaded code is hosted: its current version
 * is pinned (seats.code_version; match_players.code_version at the end), so an upload during the
 * match applies from the next one. A resumed match (resume.ts) reopens the pinned versions in
 * fresh contexts: what the bot kept in memory is lost, as for a remote bot that reconnects.
 * `group`: the sandbox worker group (a duplicate pair's two copies share one: twins.ts).
 */
export async function openHostedSeats(db: Db, play: HostedPlay, table: TableRuntime, resuming: boolean, fence: FenceToken | null, group?: string): Promise<MatchPlayers | null> {
  const candidates = seatsInOrder(table).filter((seat) => seat.strategy === null);
  let code: Map<string, CodeVersion>;
  if (resuming) {
    code = await pinnedCodeVersions(db, candidates.filter((s) => s.codeVersion !== null).map((s) => ({ botId: s.botId, version: s.codeVersion! })));
  } else {
    code = await currentCodeVersions(db, candidates.map((s) => s.botId));
    const pinned = candidates.filter((seat) => code.has(seat.botId)).map((seat) => ({ id: seat.seatId, version: code.get(seat.botId)!.version }));
    if (pinned.length > 0) await pinVersions(db, table.tableId, pinned, fence);
    for (const seat of candidates) table.setCodeVersion(seat.position, code.get(seat.botId)?.version ?? null);
  }
  if (code.size === 0) return null;
  return play.openMatch(
    [...code].map(([botId, version]) => ({ botId, code: version })),
    { tableId: table.tableId, matchId: () => table.matchId, group },
  );
}

async function pinVersions(db: Db, tableId: string, pins: Array<{ id: number; version: number }>, fence: FenceToken | null): Promise<void> {
  await db.transaction(async (tx) => {
    await assertLease(tx, fence, [tableId]);
    await tx.execute(sql`update seats set code_version = x.version from json_to_recordset(${JSON.stringify(pins)}::json) as x(id bigint, version int) where seats.seq = x.id`);
  });
}

/** How a match's seats that are not built in are reached: seats/channels.ts (the CLI's local matches compose them the same way). */
export { seatChannels } from "../seats/channels";
