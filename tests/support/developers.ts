/**
 * One home for "a developer, registered and funded by the faucet", whichever way a test reaches the
 * service: an in-process harness (support/app.ts), a real server (support/server.ts) or a node of a
 * cluster (support/nodes.ts). Each step checks its status, so a test never goes on with a developer
 * that was not created or not funded.
 */

export interface ApiAnswer {
  status: number;
  body: any;
}

/** A JSON API call as every test transport offers it. */
export type ApiCall = (method: string, path: string, options?: { body?: unknown; token?: string }) => Promise<ApiAnswer>;

export interface Developer {
  developerId: string;
  token: string;
  email: string;
}

export interface DeveloperOptions {
  /** Goes into the generated email, to tell developers apart in a failure. */
  label?: string;
  email?: string;
  password?: string;
  /** Where the calls go (a node's host id), for the error messages. */
  via?: string;
}

let emailCounter = 0;

export function uniqueEmail(label = "dev"): string {
  return `${label}-${++emailCounter}-${Math.random().toString(36).slice(2)}@example.com`;
}

const where = (via?: string) => (via ? ` through ${via}` : "");

/** POST /api/auth/register: must answer 201. */
export async function registeredDeveloper(api: ApiCall, options: DeveloperOptions = {}): Promise<Developer> {
  const email = options.email ?? uniqueEmail(options.label);
  const registered = await api("POST", "/api/auth/register", { body: { email, password: options.password ?? "a long password" } });
  if (registered.status !== 201) throw new Error(`register ${email}${where(options.via)}: ${registered.status} ${JSON.stringify(registered.body)}`);
  return { developerId: registered.body.developer.developerId as string, token: registered.body.token as string, email };
}

/** POST /api/me/balance/faucet: must answer 200 (a grant). Returns the answer's body. */
export async function claimFaucet(api: ApiCall, token: string, via?: string): Promise<any> {
  const claimed = await api("POST", "/api/me/balance/faucet", { token });
  if (claimed.status !== 200) throw new Error(`faucet${where(via)}: ${claimed.status} ${JSON.stringify(claimed.body)}`);
  return claimed.body;
}

/** A developer registered (201) and granted the faucet's credits (200). */
export async function fundedDeveloper(api: ApiCall, options: DeveloperOptions = {}): Promise<Developer> {
  const developer = await registeredDeveloper(api, options);
  await claimFaucet(api, developer.token, options.via);
  return developer;
}
