import { Elysia, t } from "elysia";
import { errorResponses } from "../../lib/http";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { BotParams } from "../bots/model";
import type { AcpcPorts } from "./service";

export const AcpcPortAnswer = t.Object(
  {
    host: t.String({ description: "Where the player connects (ACPC_PUBLIC_HOST, else the host this request named)" }),
    port: t.Integer({ description: "A one-time TCP port: one connection, then it stops listening" }),
    gameDefinition: t.String({ description: "The ACPC game definition of the bot's reset-stacks table: the file to give the player" }),
    expiresAt: t.String({ format: "date-time", description: "The port closes then if nobody connected (ACPC_PORT_TTL_MS)" }),
  },
  { title: "AcpcPort" },
);

/** ACPC players (docs/INTEROP.md): a one-time port per request, as the ACPC dealer's per-seat ports. */
export function acpcModule(ports: AcpcPorts, auth: AuthOptions) {
  return new Elysia({ name: "module:acpc" })
    .use(authPlugin(auth))
    .post(
      "/api/bots/:botId/acpc",
      async ({ developerId, params, request, set }) => {
        const answer = await ports.open(developerId, params.botId, new URL(request.url).hostname);
        set.status = 201;
        return answer;
      },
      {
        auth: true,
        params: BotParams,
        response: { 201: AcpcPortAnswer, ...errorResponses(400, 401, 403, 404, 409) },
        detail: {
          tags: ["bots"],
          summary: "A one-time TCP port for an ACPC player",
          description:
            "Owner only. The bot must sit at a waiting reset-stacks table (409 otherwise; 409 BUILT_IN_BOT, BOT_RETIRED, or a hosted bot). An unmodified ACPC player connects to `host` `port` with `gameDefinition` and greets with `VERSION:2.0.0`; from then on that connection is the bot's socket (MATCHSTATE lines, answers `:f`, `:c`, `:r<N>`). The port takes one connection and closes if nobody connects by `expiresAt`. See docs/INTEROP.md.",
        },
      },
    );
}
