/** CLI: register, login, whoami, faucet, balance. */
import { fromNow } from "../suggest";
import { Api, ApiError } from "../api";
import { str, type FlagSpec } from "../args";
import { need, SERVER_FLAG, type Command, type Ctx } from "../command";

const authFlags: FlagSpec = {
  email: { kind: "string", value: "email", help: "your email" },
  password: { kind: "string", value: "password", help: "8 to 128 characters" },
  ...SERVER_FLAG,
};

/** The token is kept for this server only; the server becomes the default for later commands. */
function remember(ctx: Ctx, server: string, token: string, email: string): void {
  Object.assign(ctx.profile, { token, email });
  ctx.config.server = server;
  ctx.save();
}

export const register: Command = {
  name: "register",
  summary: "Create a developer account; the token is saved in the config file, for this server.",
  usage: "register --email <email> --password <password> [--name <name>]",
  flags: { ...authFlags, name: { kind: "string", value: "name", help: "display name" } },
  async run(ctx, parsed) {
    const api = new Api(ctx.server(parsed));
    const body: Record<string, string> = { email: need(parsed, "email"), password: need(parsed, "password") };
    if (str(parsed, "name")) body.name = str(parsed, "name")!;
    let result;
    try {
      result = await api.request("POST", "/api/auth/register", body);
    } catch (error) {
      if (error instanceof ApiError && error.code === "EMAIL_TAKEN") {
        ctx.err(`${body.email} is already registered on ${api.server}: run \`bun run cli -- login --email ${body.email} --password …\``);
        return 1;
      }
      throw error;
    }
    remember(ctx, api.server, result.token, body.email);
    ctx.out(`registered ${body.email} (${result.developer.developerId}) on ${api.server}`);
    ctx.out(`token saved to ${ctx.configFile}`);
    ctx.out("next: bun run cli -- faucet");
    return 0;
  },
};

export const login: Command = {
  name: "login",
  summary: "Log in; the token is saved in the config file, for this server.",
  usage: "login --email <email> --password <password>",
  flags: authFlags,
  async run(ctx, parsed) {
    const api = new Api(ctx.server(parsed));
    const email = need(parsed, "email");
    const result = await api.request("POST", "/api/auth/login", { email, password: need(parsed, "password") });
    remember(ctx, api.server, result.token, email);
    ctx.out(`logged in as ${email} on ${api.server} (token valid until ${result.expiresAt}); saved to ${ctx.configFile}`);
    return 0;
  },
};

export const whoami: Command = {
  name: "whoami",
  summary: "Show the logged-in developer.",
  usage: "whoami",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const me = await ctx.api(parsed).request("GET", "/api/me", undefined, { auth: true });
    ctx.out(`${me.email} (${me.developerId}) on ${ctx.server(parsed)}`);
    return 0;
  },
};

export const faucet: Command = {
  name: "faucet",
  summary: "Claim free credits (once per cooldown, 24 h by default).",
  usage: "faucet",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    try {
      const result = await ctx.api(parsed).request("POST", "/api/me/balance/faucet", undefined, { auth: true });
      ctx.out(`claimed ${result.amount} credits · balance ${result.newBalance} · next claim ${fromNow(result.nextClaimAt)}`);
      return 0;
    } catch (error) {
      if (error instanceof ApiError && error.code === "FAUCET_COOLDOWN") {
        const body = error.body as { newBalance: number; nextClaimAt: string };
        ctx.err(`the faucet is cooling down: next claim ${fromNow(body.nextClaimAt)} · balance ${body.newBalance}`);
        return 1;
      }
      throw error;
    }
  },
};

export const balance: Command = {
  name: "balance",
  summary: "Show your credits.",
  usage: "balance",
  flags: SERVER_FLAG,
  async run(ctx, parsed) {
    const result = await ctx.api(parsed).request("GET", "/api/me/balance", undefined, { auth: true });
    ctx.out(`balance ${result.balance} credits · faucet ${result.canClaimFaucet ? "claimable now" : `claimable ${fromNow(result.nextFaucetClaim)}`}`);
    return 0;
  },
};
