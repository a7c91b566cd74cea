import type { KeyCheck } from "../bots/key-check";

/** The latest re-check of a socket's key: what is sent to the socket next waits for it; a failed one closes the socket. */
interface KeyVerdict {
  settled: boolean;
  valid: boolean;
  done: Promise<void>;
}

/**
 * The gateway's re-checks of its sockets' api keys (BotGateway.deliver). The key's check runs while
 * the bot thinks: nothing waits for it unless the next message comes first. A key no longer the
 * bot's (rotated, or the bot retired, on any node) closes the socket (4001) and its open request is
 * answered "no answer": the old key plays nothing more. A database that cannot answer is not a
 * verdict: play goes on (a node that cannot reach its database stops dealing within seconds anyway,
 * see LeaseKeeper.standing).
 */
export class KeyRechecks {
  /** The SHA-256 of the key each socket (by ws.id) was opened with. */
  private readonly keyHashOfSocket = new Map<string, string>();
  private readonly verdicts = new Map<string, KeyVerdict>();

  constructor(
    /** The gateway's key check (set by the app): read at each re-check. */
    private readonly keyCheck: () => KeyCheck | undefined,
  ) {}

  /** A socket opened for the bot (with the hash of its key, when it has one): no verdict on it yet. */
  opened(botId: string, socketId: string, keyHash: string | undefined): void {
    if (keyHash !== undefined) this.keyHashOfSocket.set(socketId, keyHash);
    this.verdicts.delete(botId);
  }

  socketGone(socketId: string): void {
    this.keyHashOfSocket.delete(socketId);
  }

  botGone(botId: string): void {
    this.verdicts.delete(botId);
  }

  /** The bot's key was found gone: nothing more is sent to it, nothing it sends is read. */
  refused(botId: string): boolean {
    return this.verdicts.get(botId)?.valid === false;
  }

  /** Runs `deliver` once the bot's pending verdict (if any) is in, in order. */
  afterVerdict(botId: string, deliver: () => void): void {
    const verdict = this.verdicts.get(botId);
    if (verdict && !verdict.settled) return void verdict.done.then(deliver);
    deliver();
  }

  /** Checks the socket's key again; `revoked` runs when it is found gone. */
  recheck(botId: string, socketId: string, revoked: () => void): void {
    const keyHash = this.keyHashOfSocket.get(socketId);
    const keyCheck = this.keyCheck();
    if (keyHash === undefined || !keyCheck) return;
    const verdict: KeyVerdict = { settled: false, valid: true, done: Promise.resolve() };
    verdict.done = keyCheck(botId, keyHash).then(
      (valid) => {
        verdict.settled = true;
        verdict.valid = valid;
        if (!valid) revoked();
      },
      () => {
        verdict.settled = true;
      },
    );
    this.verdicts.set(botId, verdict);
  }
}
