import { Elysia } from "elysia";
import { requestLog } from "./plugins/request-log";
import { isPageForm, payloadTooLarge, rawBodyRouteOf, readFormBody, readJsonBody, readRawBody, refuseContentEncoding } from "./lib/http";
import { errorHandler } from "./plugins/error-handler";
import { SharedRateLimiter } from "./modules/auth/shared-limiter";
import { webModule } from "./modules/web";
import { PAGE_CODE_UPLOAD_BODY } from "./modules/web/account";
import { WebSessions } from "./modules/web/sessions";
import { listTransactions } from "./modules/credits/transactions";
import { notFoundPage } from "./modules/web/layout";
import { authModule } from "./modules/auth";
import { botsModule } from "./modules/bots";
import { creditsModule } from "./modules/credits";
import { docsModule } from "./modules/docs";
import { httpConventions, methodsOfRoutes } from "./plugins/http-conventions";
import { healthModule } from "./modules/health";
import { EMBEDDED_REACHABILITY } from "./db/probe";
import { databaseGate } from "./plugins/database-gate";
import { matchesModule } from "./modules/matches";
import { httpMetrics, metricsModule } from "./modules/metrics";
import { instrument } from "./modules/metrics/instrument";
import { traceServices } from "./modules/metrics/traces";
import { NO_TRACING } from "./lib/tracing";
import { httpTracing } from "./plugins/http-tracing";
import { Metrics } from "./modules/metrics/service";
import { protocolModule } from "./modules/protocol";
import { ratingsModule } from "./modules/ratings";
import { statsModule } from "./modules/stats";
import { tablesModule } from "./modules/tables";
import { ladderModule } from "./modules/ladder";
import { competitionsModule } from "./modules/competitions";
import type { AuthOptions } from "./plugins/auth";
import { CODE_UPLOAD_BODY, hostedModule } from "./modules/hosted";
import { mcpModule } from "./modules/mcp";
import { acpcModule } from "./modules/acpc";
import type { RouteSchemas } from "./modules/mcp/tools";

export { compose, defaultLog, type AppDeps, type Services } from "./compose";
import { compose, defaultLog, type AppDeps } from "./compose";

/** Routes whose body is a file taken as it is, not JSON (each with its own cap). */
const RAW_BODY_ROUTES = [CODE_UPLOAD_BODY, PAGE_CODE_UPLOAD_BODY];

/** Composes the feature modules. Never listens: tests call `app.handle`, main.ts calls `listen`. */
export function createApp(deps: AppDeps) {
  const services = compose(deps);
  const metrics = new Metrics(deps.config.hostId);
  instrument(metrics, services, deps.bus);
  const tracing = deps.tracing ?? NO_TRACING;
  traceServices(tracing, services);
  const auth: AuthOptions = {
    secret: deps.jwtSecret,
    clock: services.clock,
    ttlSeconds: deps.config.tokenTtlSeconds,
    developerExists: (developerId) => services.identity.exists(developerId),
    verified: new Map(),
  };
  const maxBodyBytes = deps.config.maxBodyBytes;
  // One budget per client address for the API's sign-in and the pages' (the same buckets).
  const signInLimits = {
    perMinute: new SharedRateLimiter(deps.db, "auth", deps.config.authRateLimitPerMinute, 60_000, services.clock),
    registrationsPerDay: new SharedRateLimiter(deps.db, "register-day", deps.config.registrationsPerAddressPerDay, 86_400_000, services.clock),
  };
  // systemRouter off: with Bun's router, GET /api/bots/:botId shadows the WebSocket route
  // /api/bots/connect (Elysia 1.4 maps only plain routes there). Elysia's own router orders them right.
  const methodsOf = methodsOfRoutes(() => app.routes);
  // /mcp's tools are the app's own routes: their schemas, called in-process with the agent's token.
  const appRoutes = (): RouteSchemas[] => app.routes as unknown as RouteSchemas[];
  const handleInApp = (request: Request): Promise<Response> => app.handle(request);
  const app = new Elysia({ normalize: false, systemRouter: false })
    .use(httpMetrics(metrics))
    .use(tracing.enabled ? httpTracing(tracing) : new Elysia({ name: "plugin:http-tracing-off" }))
    .use(requestLog(deps.logger))
    .use(errorHandler(deps.log ?? defaultLog(deps.config), () => notFoundPage("No page at this address."), methodsOf))
    .use(httpConventions({ corsOrigins: deps.config.corsOrigins, methodsOf }))
    .onRequest(({ request }) => {
      const length = Number(request.headers.get("content-length") ?? 0);
      const cap = length > maxBodyBytes ? (rawBodyRouteOf(request, RAW_BODY_ROUTES)?.maxBytes ?? maxBodyBytes) : maxBodyBytes;
      if (length > cap) throw payloadTooLarge(cap);
      refuseContentEncoding(request);
    })
    .use(databaseGate(deps.database ?? EMBEDDED_REACHABILITY, deps.database !== undefined && deps.database !== EMBEDDED_REACHABILITY))
    .onParse({ as: "global" }, ({ request, contentType }) => {
      const raw = rawBodyRouteOf(request, RAW_BODY_ROUTES);
      const timeoutMs = deps.config.bodyTimeoutMs;
      if (raw) return readRawBody(request, raw, timeoutMs);
      if (isPageForm(request, contentType)) return readFormBody(request, { maxBytes: maxBodyBytes, timeoutMs });
      return readJsonBody(request, contentType, { maxBytes: maxBodyBytes, timeoutMs });
    })
    .use(docsModule())
    .use(
      healthModule({
        dbKind: deps.dbKind,
        cluster: services.cluster,
        matchmaker: () => services.matchmaker.isMatchmaker(),
        database: deps.database ?? EMBEDDED_REACHABILITY,
        leaseStanding: deps.leaseStanding ?? (() => true),
      }),
    )
    .use(metricsModule(metrics, { token: deps.config.metricsToken, trustProxy: deps.config.trustProxy }))
    .use(authModule(services.identity, auth, signInLimits, deps.config.trustProxy))
    .use(protocolModule(services.bots, services.gateway))
    .use(botsModule(services.bots, auth, services.idempotency, { wholeListConcurrency: deps.config.botListConcurrency }))
    .use(hostedModule(services.hosted, auth, services.idempotency))
    .use(creditsModule(deps.db, services.accounts, auth, services.idempotency, deps.config))
    .use(tablesModule(services.tables, auth, services.idempotency, deps.config))
    .use(matchesModule(services.matches, auth))
    .use(statsModule(services.stats, deps.config.leaderboardMinMatches))
    .use(ratingsModule(services.ratings))
    .use(ladderModule(services.ladder, auth, deps.config.ladder))
    .use(acpcModule(services.acpcPorts, auth))
    .use(
      mcpModule({
        auth,
        seats: services.agentSeats,
        routes: appRoutes,
        handle: handleInApp,
        allowedOrigins: deps.config.mcp.allowedOrigins,
        maxWaitMs: deps.config.mcp.maxWaitMs,
      }),
    )
    .use(competitionsModule(services.challenges, services.tournaments, auth, services.idempotency))
    .use(
      webModule({
        ...services,
        leaderboardMinMatches: deps.config.leaderboardMinMatches,
        db: deps.db,
        tv: deps.config.tv,
        sessions: new WebSessions(deps.db, services.clock, deps.config.webSessionTtlSeconds),
        signInLimits,
        trustProxy: deps.config.trustProxy,
        faucetAmount: deps.config.faucetAmount,
        transactions: (developerId, page) => listTransactions(deps.db, developerId, page),
      }),
    );
  return Object.assign(app, { services, metrics });
}

export type App = ReturnType<typeof createApp>;
