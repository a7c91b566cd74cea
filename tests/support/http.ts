/** A JSON API call over real HTTP, as a client sees it. */
export interface ApiResult {
  status: number;
  body: any;
  headers: Headers;
}

export async function callApi(
  url: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<ApiResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, body, headers: response.headers };
}

/**
 * Every item of a paged list whose pages name the next one in a `Link: <path>; rel="next"`
 * header (GET /api/matches/:id/hands): the `key` array of each page, concatenated.
 */
export async function allPages(url: string, path: string, key: string, options: { token?: string } = {}): Promise<any[]> {
  const items: any[] = [];
  for (let next: string | null = path, pages = 0; next !== null; pages++) {
    // Bounded: a Link that led back (a loop) throws here, not at the test's timeout.
    if (pages >= 1_000) throw new Error(`GET ${path}: more than 1,000 pages (a Link loop?)`);
    const page = await callApi(url, "GET", next, options);
    if (page.status !== 200) throw new Error(`GET ${next}: ${page.status} ${JSON.stringify(page.body)}`);
    items.push(...page.body[key]);
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")?.[1] ?? null;
  }
  return items;
}
