import { Elysia } from "elysia";
import { errorResponses } from "../../lib/http";
import { authPlugin, type AuthOptions } from "../../plugins/auth";
import { Developer, LoginBody, LoginResponse, RegisterBody, RegisterResponse } from "./model";
import type { Identity } from "./service";

export function authModule(identity: Identity, auth: AuthOptions) {
  return new Elysia({ name: "module:auth" })
    .use(authPlugin(auth))
    .post(
      "/api/auth/register",
      async ({ body, issueToken, set }) => {
        const developer = await identity.register(body);
        const { token } = await issueToken(developer.developerId);
        set.status = 201;
        return { developer, token };
      },
      {
        body: RegisterBody,
        response: { 201: RegisterResponse, ...errorResponses(400, 409, 429) },
        detail: {
          tags: ["identity"],
          summary: "Register a developer",
          description: "Creates a developer account and returns a bearer token (valid 7 days by default). Emails are unique, case-insensitive.",
        },
      },
    )
    .post(
      "/api/auth/login",
      async ({ body, issueToken }) => {
        const developer = await identity.verifyCredentials(body.email, body.password);
        return issueToken(developer.developerId);
      },
      {
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 429) },
        detail: {
          tags: ["identity"],
          summary: "Log in",
          description: "Exchanges email and password for a bearer token. Unknown email and wrong password get the same 401.",
        },
      },
    )
    .get("/api/me", ({ developerId }) => identity.developer(developerId), {
      auth: true,
      response: { 200: Developer, ...errorResponses(401) },
      detail: { tags: ["identity"], summary: "The calling developer" },
    });
}
