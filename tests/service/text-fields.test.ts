import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { main } from "../../src/cli/index";
import { terminalSafe } from "../../src/cli/format";
import { useHarness } from "../support/app";

setDefaultTimeout(60_000);

let token: string;
const h = useHarness("text_fields");
beforeAll(async () => {
  token = (await h.registerDeveloper()).token;
});

/** Text that would rewrite a terminal or reorder a name on a page. */
const HOSTILE = {
  "escape sequences (clear, home, retitle)": "\u001b[2J\u001b[H pwned \u001b]0;pwned\u0007",
  "a bell": "ding\u0007",
  "DEL": "a\u007fb",
  "C1 NEL": "a\u0085b",
  "C1 CSI": "a\u009b2Jb",
  "right-to-left override": "gpj.\u202Eexe",
  "first strong isolate": "a\u2068b",
  "left-to-right mark": "a\u200Eb",
  "arabic letter mark": "a\u061Cb",
  "a newline": "two\nlines",
  "a tab": "tab\there",
};

const FIELDS: Array<{ field: string; request: (value: string) => Promise<{ status: number; body: any }> }> = [
  { field: "name", request: (value) => h.call("POST", "/api/bots", { token, body: { name: value } }) },
  { field: "description", request: (value) => h.call("POST", "/api/bots", { token, body: { name: `described-${Math.random()}`, description: value } }) },
  { field: "name", request: (value) => h.call("POST", "/api/auth/register", { body: { email: `t${Math.random().toString(36).slice(2)}@example.com`, password: "a long password", name: value } }) },
  { field: "seed", request: (value) => h.call("POST", "/api/tables", { token, body: { maxPlayers: 2, seed: value } }) },
];

describe("user-supplied text carries no control or bidi characters", () => {
  test("every text field refuses each hostile string with a 400 naming the field, and nothing is created", async () => {
    const before = await h.call("GET", "/api/bots");
    let refused = 0;
    for (const { field, request } of FIELDS) {
      for (const [what, value] of Object.entries(HOSTILE)) {
        const response = await request(value);
        expect({ field, what, status: response.status, code: response.body.error?.code, named: response.body.error?.details?.field }).toEqual({ field, what, status: 400, code: "VALIDATION_ERROR", named: field });
        expect(response.body.error.message).toContain("control character");
        refused += 1;
      }
    }
    expect(refused).toBe(FIELDS.length * Object.keys(HOSTILE).length);
    expect((await h.call("GET", "/api/bots")).body).toEqual(before.body);
    expect((await h.call("GET", "/api/tables", { token })).body).toEqual([]);
  });

  test("every invisible character (zero-width, word joiners, BOM, line and paragraph separators) is refused in a bot's name and description and a developer's name", async () => {
    const invisible = [0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x2028, 0x2029];
    const textFields = FIELDS.filter(({ field }) => field !== "seed");
    expect(textFields.length).toBe(3);
    const before = await h.call("GET", "/api/bots");
    let refused = 0;
    for (const { field, request } of textFields) {
      for (const codePoint of invisible) {
        const hex = `U+${codePoint.toString(16).toUpperCase()}`;
        const response = await request(`my${String.fromCodePoint(codePoint)}-bot`);
        expect({ field, hex, status: response.status, code: response.body.error?.code, named: response.body.error?.details?.field }).toEqual({ field, hex, status: 400, code: "VALIDATION_ERROR", named: field });
        expect(response.body.error.message).toContain("invisible character");
        refused += 1;
      }
    }
    expect(refused).toBe(3 * 13);
    expect((await h.call("GET", "/api/bots")).body).toEqual(before.body);
    // The CLI drops them from what it prints (a name stored before the rule).
    expect(terminalSafe(`my${invisible.map((c) => String.fromCodePoint(c)).join("")}-bot`)).toBe("my-bot");
  });

  test("ordinary text in any script, with symbols and emoji, is accepted", async () => {
    const created = await h.call("POST", "/api/bots", { token, body: { name: "Ünïcødé ♠ 日本 עברית 🃏", description: "raises — always, « toujours »" } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe("Ünïcødé ♠ 日本 עברית 🃏");
  });

  test("the OpenAPI document states the rule on the fields", async () => {
    const doc = (await h.call("GET", "/swagger/json")).body;
    const name = doc.paths["/api/bots"].post.requestBody.content["application/json"].schema;
    const properties = name.properties ?? doc.components.schemas[name.$ref.split("/").pop()].properties;
    expect(properties.name.description).toContain("no control characters");
    expect(typeof properties.name.pattern).toBe("string");
  });
});

describe("the CLI prints nothing that could drive a terminal", () => {
  test("terminalSafe drops C0 (but newline and tab), DEL, C1 and bidi controls, and keeps the rest", () => {
    expect(terminalSafe(HOSTILE["escape sequences (clear, home, retitle)"])).toBe("[2J[H pwned ]0;pwned");
    expect(terminalSafe("gpj.\u202Eexe ♠ é\tx\ny\u009b\u0085")).toBe("gpj.exe ♠ é\tx\ny");
  });

  test("a name stored before the rule (straight in the database) reaches `bots list --all` with its escapes gone", async () => {
    const { developerId } = (await h.call("GET", "/api/me", { token })).body;
    const evil = HOSTILE["escape sequences (clear, home, retitle)"] + "\u202Eevil";
    await h.database.db.execute(sql`insert into bots (id, developer_id, name, description, api_key_hash, created_at) values ('bot_evil', ${developerId}, ${evil}, ${"\u001b[31mred"}, 'hash-evil', now())`);
    const server = Bun.serve({ port: 0, fetch: (request) => h.app.handle(request) });
    try {
      let stdout = "";
      let stderr = "";
      const code = await main(["bots", "list", "--all", "--server", `http://127.0.0.1:${server.port}`], {
        env: { POKER_CONFIG: `/tmp/text-fields-${process.pid}.json` },
        stdout: (t) => void (stdout += t),
        stderr: (t) => void (stderr += t),
        cwd: process.cwd(),
        isTTY: false,
      });
      expect([code, stderr]).toEqual([0, ""]);
      expect(stdout).toContain("bot_evil");
      expect(stdout).toContain("pwned");
      expect(stdout).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202E]/);
    } finally {
      server.stop(true);
    }
  });
});
