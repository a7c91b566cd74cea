import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { TEST_ENV } from "../support/app";
import { spawnMain, type ChildServer } from "../support/process";
import { until } from "../support/nodes";

// A body that trickles in (headers, then a byte at a time) is cut off at BODY_TIMEOUT_MS: 408 with
// the error shape and Connection: close, then the server closes the socket. Through a raw socket on
// the real entry point (Bun's own timeouts included).
setDefaultTimeout(60_000);

let server: ChildServer;
beforeAll(async () => {
  server = await spawnMain({ ...TEST_ENV, DATABASE_URL: "", PGLITE_DIR: "memory://", BODY_TIMEOUT_MS: "1000" });
});
afterAll(async () => {
  server?.child.kill("SIGTERM");
  await server?.child.exited;
});

interface RawExchange {
  /** Everything the server wrote. */
  received(): string;
  /** Whether the server closed the connection. */
  closed(): boolean;
  write(text: string): void;
  end(): void;
}

async function rawSocket(): Promise<RawExchange> {
  const url = new URL(server.url);
  let received = "";
  let closed = false;
  const socket = await Bun.connect({
    hostname: url.hostname,
    port: Number(url.port),
    socket: {
      data: (_socket, chunk) => void (received += Buffer.from(chunk).toString("utf8")),
      close: () => void (closed = true),
      error: () => void (closed = true),
    },
  });
  return { received: () => received, closed: () => closed, write: (text) => void socket.write(text), end: () => socket.end() };
}

/** Sends one body byte every 100 ms (until stopped), as a trickling client would. */
function trickle(exchange: RawExchange, byte = "a"): () => number {
  let sent = 0;
  const timer = setInterval(() => {
    if (exchange.closed()) return clearInterval(timer);
    exchange.write(byte);
    sent += 1;
  }, 100);
  return () => {
    clearInterval(timer);
    return sent;
  };
}

function parse(raw: string) {
  const [head, body] = raw.split("\r\n\r\n");
  const [statusLine, ...headers] = head.split("\r\n");
  return { statusLine, headers: new Map(headers.map((h) => [h.slice(0, h.indexOf(":")).toLowerCase(), h.slice(h.indexOf(":") + 1).trim()])), body };
}

describe("a request body that trickles in", () => {
  test("with a declared length: 408 REQUEST_TIMEOUT in the error shape, Connection: close, and the socket is closed", async () => {
    const exchange = await rawSocket();
    exchange.write(`POST /api/auth/register HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const stop = trickle(exchange, " ");
    // Meanwhile the server answers others at once.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await until(async () => exchange.closed(), 30_000, "the server closing the trickling connection");
    const sent = stop();
    expect(sent).toBeLessThan(1000);
    const response = parse(exchange.received());
    expect(response.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(response.headers.get("connection")).toBe("close");
    expect(JSON.parse(response.body)).toEqual({ error: { code: "REQUEST_TIMEOUT", message: "The request body did not arrive within 1000 ms", details: { timeoutMs: 1000 } } });
  });

  test("chunked, without a declared length: cut off the same way", async () => {
    const exchange = await rawSocket();
    exchange.write(`POST /api/auth/login HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`);
    const stop = trickle(exchange, "1\r\n \r\n");
    await until(async () => exchange.closed(), 30_000, "the server closing the trickling connection");
    stop();
    const response = parse(exchange.received());
    expect(response.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(JSON.parse(response.body).error.code).toBe("REQUEST_TIMEOUT");
  });

  test("a body that arrives in pieces within the deadline is answered as usual", async () => {
    const exchange = await rawSocket();
    const body = JSON.stringify({ email: "slow@example.com", password: "a long password" });
    exchange.write(`POST /api/auth/register HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`);
    await Bun.sleep(50);
    exchange.write(body.slice(10));
    await until(async () => exchange.closed(), 30_000, "the answer");
    expect(parse(exchange.received()).statusLine).toBe("HTTP/1.1 201 Created");
  });
});
