/** The service's HTTP API, as the CLI uses it. Errors carry the SPEC §8 code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

interface RequestOptions {
  auth?: boolean | "if-logged-in";
  contentType?: string;
}

export class Api {
  constructor(
    readonly server: string,
    readonly token?: string,
  ) {}

  /**
   * `auth: "if-logged-in"`: public routes that show an owner more (their own bots' hole cards).
   * `contentType`: the body is sent as it is (a bot file), not as JSON.
   */
  async request<T = any>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
    try {
      return await this.send<T>(method, path, body, options);
    } catch (error) {
      // A public read must not fail on an expired or revoked token: it is asked again anonymously.
      if (options.auth === "if-logged-in" && this.token && error instanceof ApiError && error.status === 401) return this.send<T>(method, path, body, { contentType: options.contentType });
      throw error;
    }
  }

  private async send<T>(method: string, path: string, body: unknown, options: RequestOptions): Promise<T> {
    const headers: Record<string, string> = {};
    if (options.auth === "if-logged-in" && this.token) headers.authorization = `Bearer ${this.token}`;
    if (options.auth === true) {
      if (!this.token) throw new ApiError(401, "NOT_LOGGED_IN", `not logged in to ${this.server}: run \`bun run cli -- login --email … --password …\` (or register) first`, null);
      headers.authorization = `Bearer ${this.token}`;
    }
    if (body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
    const sent = body === undefined ? undefined : options.contentType ? (body as string) : JSON.stringify(body);
    let response: Response;
    try {
      response = await fetch(this.server + path, { method, headers, body: sent });
    } catch (error) {
      throw new ApiError(0, "UNREACHABLE", `cannot reach the service at ${this.server} (${(error as Error).message}); is it running (\`bun run start\`)? Set --server or POKER_SERVER.`, null);
    }
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    if (!response.ok) {
      const error = parsed?.error;
      throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? `HTTP ${response.status}`, parsed);
    }
    return parsed as T;
  }
}
