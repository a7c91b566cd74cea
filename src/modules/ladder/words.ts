/**
 * A ladder entry's state in words its owner can act on: the CLI's `ladder status` and the bot page's
 * owner view say the same (docs/LADDER.md, "Who plays"). Pure, and free of server code: the web
 * page's script bundles it.
 */
import { LADDER_SEATS } from "./availability";
import type { LadderEntryView } from "./service";

/** How a time reads ("in 3 h 12 min (…)"): the CLI's and the page's own. */
export type When = (iso: string) => string;

/** What a paused entry waits for, as something its owner can do (the entry resumes by itself then). */
export function remedy(entry: Pick<LadderEntryView, "reason" | "format">, name: string): string {
  switch (entry.reason) {
    case "INSUFFICIENT_BALANCE":
      return "your balance is below the ladder's buy-in: claim the faucet (bun run cli -- faucet)";
    case "BOT_OFFLINE":
      return `the bot is not connected: run it and leave it running (bun examples/starter-bot.ts --bot ${name})`;
    case "HOSTED_SEAT_LIMIT":
      return "your hosted bots hold the most seats a developer's may hold at once (MAX_HOSTED_SEATS_PER_DEVELOPER): it plays when one of their matches ends";
    case "BOT_RETIRED":
      return `the bot is retired: take it off the ladder (bun run cli -- ladder leave ${name}${entry.format === "heads-up" ? "" : ` --format ${entry.format}`})`;
    default:
      return "";
  }
}

/** Why the house's bots do not meet this entry now, and until when (docs/LADDER.md, "The house's bankroll"). */
export function houseWords(house: NonNullable<LadderEntryView["houseUnavailable"]>, when: When): string {
  return house.reason === "HOUSE_DAILY_LIMIT"
    ? `your bots have won ${house.won} from the house in the last 24 h, its daily limit: the house's bots meet yours again ${when(house.until)}`
    : `the house is out of credits: its bots play again ${when(house.until)} at the latest (its next faucet claim)`;
}

/** The entry's state in one phrase: "active", "paused (…): what to do", "active, waiting (NO_OPPONENT): …", "left". */
export function entryStateInWords(entry: LadderEntryView, name: string, when: When): string {
  if (entry.status === "left") return `left (enter it again: bun run cli -- ladder enter ${name}${entry.format === "heads-up" ? "" : ` --format ${entry.format}`})`;
  if (entry.status === "paused") return `paused (${entry.reason}): ${remedy(entry, name)}`;
  if (entry.reason === "NO_OPPONENT") {
    const needed = LADDER_SEATS[entry.format] - 1;
    const free = `${entry.opponentsAvailable} of the ${needed} opponent${needed === 1 ? "" : "s"} a table needs ${entry.opponentsAvailable === 1 ? "is" : "are"} free now`;
    const why = entry.houseUnavailable ? houseWords(entry.houseUnavailable, when) : "it plays as soon as enough bots of other developers are free";
    return `active, waiting (NO_OPPONENT): ${free}; ${why}`;
  }
  return entry.houseUnavailable ? `active (${houseWords(entry.houseUnavailable, when)})` : "active";
}
