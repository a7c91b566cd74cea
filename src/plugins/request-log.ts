import { Elysia } from "elysia";
import type { Logger } from "pino";
import { requestIdOf } from "./http-conventions";
import { outcomeOf, requestOutcome } from "./request-outcome";

/**
 * At LOG_LEVEL=debug, one line per HTTP request: its id, method, route template, status and
 * duration. The route template, never the URL: a bot may put its api key in the query string.
 * At the default level the plugin adds nothing at all.
 */
export function requestLog(logger: Logger | undefined) {
  const plugin = new Elysia({ name: "plugin:request-log" });
  if (!logger?.isLevelEnabled("debug")) return plugin;
  return plugin.use(requestOutcome).onAfterResponse({ as: "global" }, (context) => {
    const outcome = outcomeOf(context);
    if (!outcome) return;
    logger.debug({ requestId: requestIdOf(context.request), method: context.request.method, route: outcome.route, status: outcome.status, durationMs: Math.round(outcome.durationMs * 10) / 10 }, "request");
  });
}
