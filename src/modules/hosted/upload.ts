/**
 * Upload validation for hosted bots, as a pure service function (the route that stores the
 * result comes later): size and type, build, load, and a smoke hand on the sample state. Any
 * failure is a 4xx AppError with what went wrong in details; nothing is returned to store.
 *
 * Validation never competes with match play for a worker: it runs in the sandbox's validation
 * worker (Sandbox.open `validation`), and one upload at a time per node is validated (the others
 * wait their turn), so a burst of uploads costs the tables at most one core's share.
 */
import { createHash } from "node:crypto";
import { AppError, errors } from "../../lib/errors.ts";
import { sampleHandStarted, sampleMatchStarted, sampleRequest } from "./sample.ts";
import { bundleBot, SandboxOpenError, type Sandbox } from "./sandbox/index.ts";

export const MAX_SOURCE_BYTES = 256 * 1024;
export { MAX_BUNDLED_BYTES } from "./sandbox/bundle.ts";

/** Uploads validated at once per node (the rest queue, in order). */
const VALIDATIONS_AT_ONCE = 1;
let validating = 0;
const waiting: Array<() => void> = [];

async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  if (validating >= VALIDATIONS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  validating++;
  try {
    return await work();
  } finally {
    validating--;
    waiting.shift()?.();
  }
}

/** Bot files come as JavaScript or TypeScript (either is built as TypeScript, a superset). */
const MEDIA_TYPES: Record<string, "ts" | "js"> = {
  "application/javascript": "js",
  "text/javascript": "js",
  "application/typescript": "ts",
  "text/typescript": "ts",
  "application/x-typescript": "ts",
};

export interface ValidatedUpload {
  /** The file as uploaded (UTF-8 text), and what it was sent as. */
  source: string;
  language: "ts" | "js";
  /** Of the file as uploaded. */
  sha256: string;
  bytes: number;
  /** The script the sandbox runs (the file + the SDK's pure parts + the guest glue). */
  bundled: string;
}

export async function validateUpload(body: Uint8Array | string, sandbox: Sandbox, contentType?: string | null): Promise<ValidatedUpload> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  if (bytes.byteLength > MAX_SOURCE_BYTES) {
    throw new AppError(413, "PAYLOAD_TOO_LARGE", `A bot file is at most ${MAX_SOURCE_BYTES} bytes`, { bytes: bytes.byteLength, maxBytes: MAX_SOURCE_BYTES });
  }
  const mediaType = contentType?.split(";")[0].trim().toLowerCase() || "application/typescript";
  const language = MEDIA_TYPES[mediaType];
  if (!language) {
    throw new AppError(415, "UNSUPPORTED_MEDIA_TYPE", "A bot file is application/javascript or text/typescript", { contentType: mediaType, accepted: Object.keys(MEDIA_TYPES) });
  }
  let source: string;
  try {
    source = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.validation("The bot file is not UTF-8 text", { stage: "read" });
  }
  if (source.trim() === "") throw errors.validation("The bot file is empty", { stage: "read" });
  // Postgres text cannot hold NUL (and no source file needs one).
  if (source.includes("\u0000")) throw errors.validation("The bot file contains a NUL character", { stage: "read" });

  return oneAtATime(() => buildAndTry(source, language, bytes, sandbox));
}

async function buildAndTry(source: string, language: "ts" | "js", bytes: Uint8Array, sandbox: Sandbox): Promise<ValidatedUpload> {
  const built = await bundleBot(source, language);
  if (!built.ok && built.tooLarge) {
    const { bytes: bundledBytes, maxBytes } = built.tooLarge;
    throw new AppError(413, "PAYLOAD_TOO_LARGE", `The bot file builds into a script over ${maxBytes} bytes: ${built.errors[0].message}`, { stage: "build", bundledBytes, maxBundledBytes: maxBytes, errors: built.errors });
  }
  if (!built.ok) throw errors.validation("The bot file does not build", { stage: "build", errors: built.errors });

  let seat;
  try {
    seat = await sandbox.open(built.code, { botId: "sample-hero", validation: true });
  } catch (error) {
    if (!(error instanceof SandboxOpenError)) throw error;
    throw errors.validation(`The bot file does not load: ${error.message}`, { stage: "load", kind: error.kind, error: error.message, logs: error.logs.slice(0, 20) });
  }
  try {
    for (const message of [sampleMatchStarted(), sampleHandStarted()]) {
      const delivered = await seat.notify(message);
      if (!delivered.ok) throw smokeFailure(delivered.kind, delivered.message, seat.logs());
    }
    for (const street of ["preflop", "flop"] as const) {
      const decision = await seat.decide(sampleRequest(street));
      if (!decision.ok) throw smokeFailure(decision.kind, decision.message, seat.logs());
    }
  } finally {
    await seat.close();
  }
  return { source, language, sha256: createHash("sha256").update(bytes).digest("hex"), bytes: bytes.byteLength, bundled: built.code };
}

function smokeFailure(kind: string, message: string, logs: unknown[]): AppError {
  return errors.validation(`The bot failed a smoke decision on the sample hand (${kind}): ${message}`, { stage: "smoke", kind, error: message, logs: logs.slice(-20) });
}
