/**
 * Runs INSIDE the sandbox, bundled into every hosted bot at upload: the SDK's own BotSession
 * drives the bot, so a hosted decide(state) gets exactly the state a remote SDK bot gets
 * ("what passes locally passes on the server"). The worker talks to it through one object it
 * takes from globalThis (and deletes) right after the script ran: handle(json) and collect().
 *
 * Nothing here is trusted by the host: the bot shares this realm and could tamper with it. The
 * worker classifies timeouts, memory and stack itself, and the host re-checks the answer.
 */
import { BotSession, type BotDefinition, type LogEntry } from "./sdk-pure.ts";

// Taken before the bot's top-level code runs (the entry imports this module first).
const stringify = JSON.stringify;
const parse = JSON.parse;
const print = console.warn;

/** Events the host reports itself (with the failure kind), so the SDK's copies would be noise. */
const HOST_REPORTED = new Set(["decide_failed", "illegal_action", "raise_clamped", "action"]);

interface Outcome {
  settled: boolean;
  decided: boolean;
  answer?: unknown;
  threw?: string;
}

function describe(error: unknown): string {
  try {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return text.slice(0, 500);
  } catch {
    return "an unprintable value was thrown";
  }
}

export function install(bot: unknown): void {
  if (!bot || typeof bot !== "object" || typeof (bot as BotDefinition).decide !== "function") {
    throw new Error("the file has no default bot: end it with `export default defineBot({ decide(state) { … } })`");
  }
  const def = bot as BotDefinition;
  let outcome: Outcome = { settled: true, decided: false };
  // Hooks are called on the bot itself (so `this` is the bot, as in the SDK); a hook that throws
  // is logged by the session as hook_failed and counted by the host as a failure.
  const hook = (name: "onMatchStarted" | "onHandStarted" | "onHandEnded" | "onMatchEnded" | "onMessage") =>
    def[name] ? (message: unknown) => (def[name] as (m: unknown) => void).call(def, message) : undefined;
  const wrapped: BotDefinition = {
    name: def.name,
    async decide(state) {
      try {
        outcome.answer = await def.decide(state);
        outcome.decided = true;
        return outcome.answer as never;
      } catch (error) {
        outcome.threw = describe(error);
        throw error;
      }
    },
    onMatchStarted: hook("onMatchStarted"),
    onHandStarted: hook("onHandStarted"),
    onHandEnded: hook("onHandEnded"),
    onMatchEnded: hook("onMatchEnded"),
    onMessage: hook("onMessage"),
  };
  const log = (entry: LogEntry) => {
    if (entry.event === "hook_failed") outcome.threw = `${entry.hook} threw ${String(entry.error)}`;
    if ((entry.level === "warn" || entry.level === "error") && !HOST_REPORTED.has(entry.event)) print(stringify(entry));
  };
  const session = new BotSession(wrapped, () => {}, log);

  (globalThis as Record<string, unknown>).__hostedGuest = {
    handle(json: string): void {
      outcome = { settled: false, decided: false };
      const current = outcome;
      session.handle(parse(json)).then(
        () => void (current.settled = true),
        (error) => {
          current.threw ??= describe(error);
          current.settled = true;
        },
      );
    },
    collect(): string {
      const { settled, decided, answer, threw } = outcome;
      try {
        return stringify({ settled, decided, answer: answer ?? null, threw: threw ?? null });
      } catch (error) {
        // Not JSON (a cycle, a BigInt): an answer of no known shape, which the host counts as illegal.
        return stringify({ settled, decided, answer: { notJson: describe(error) }, threw: threw ?? null });
      }
    },
  };
}
