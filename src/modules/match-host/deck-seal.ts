/**
 * A running match's deck secret is every card it will deal: it never rests in plaintext. It is
 * stored sealed (AES-256-GCM under the service's deck seal key, the match id as associated data,
 * so a sealed secret cannot be moved to another match) from the match's start, and in the clear
 * only once the match is over (the fairness record reveals it). Every node holds the key, so any
 * of them can resume a match another sealed. What this protects, and what not: docs/FAIRNESS.md.
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import type { Db } from "../../db/index";
import { ensureDeckSealKey } from "../../db/settings";
import { invariant } from "../../lib/assert";
import { parseDeckSealKey } from "../../config";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class DeckSeal {
  private key: Promise<Buffer> | null = null;

  /** `configured`: DECK_SEAL_KEY; absent, the key kept in the database (generated at first use). */
  constructor(
    private readonly db: Db,
    private readonly configured: string | undefined,
  ) {}

  private keyOf(): Promise<Buffer> {
    this.key ??= ensureDeckSealKey(this.db, this.configured).then(parseDeckSealKey);
    // A failed read is not remembered: the next call tries again.
    this.key.catch(() => (this.key = null));
    return this.key;
  }

  /** `v1:` + base64 of IV, ciphertext and tag. */
  async seal(matchId: string, secretHex: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const cipher = createCipheriv("aes-256-gcm", await this.keyOf(), iv);
    cipher.setAAD(Buffer.from(matchId));
    const sealed = Buffer.concat([cipher.update(Buffer.from(secretHex, "hex")), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString("base64")}`;
  }

  /** The secret (hex); throws if it was sealed under another key or for another match, or was altered. */
  async unseal(matchId: string, sealedText: string): Promise<string> {
    const [version, body] = sealedText.split(":");
    invariant(version === VERSION && body !== undefined, `match ${matchId}: unknown deck seal format`);
    const bytes = Buffer.from(body, "base64");
    const decipher = createDecipheriv("aes-256-gcm", await this.keyOf(), bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(matchId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("hex");
    } catch {
      throw new Error(`match ${matchId}: its deck secret does not unseal with this node's DECK_SEAL_KEY (another key, or altered)`);
    }
  }

  /** A match's secret from its row: revealed, or sealed; null for a seeded match (or one older than commitments). */
  async secretOf(match: { id: string; deckSecret: string | null; deckSecretSealed: string | null }): Promise<string | null> {
    if (match.deckSecret !== null) return match.deckSecret;
    return match.deckSecretSealed === null ? null : this.unseal(match.id, match.deckSecretSealed);
  }
}
