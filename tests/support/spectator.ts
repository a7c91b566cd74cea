import type { Message } from "./ws-bot";

/** A spectator's socket on one node (`/api/tables/:tableId/watch`): records every message. */
export class Spectator {
  readonly messages: Message[] = [];
  private socket!: WebSocket;

  static async watch(nodeUrl: string, tableId: string): Promise<Spectator> {
    const spectator = new Spectator();
    spectator.socket = new WebSocket(`${nodeUrl.replace(/^http/, "ws")}/api/tables/${tableId}/watch`);
    spectator.socket.onmessage = (event) => spectator.messages.push(JSON.parse(String(event.data)));
    const deadline = Date.now() + 10_000;
    while (!spectator.messages.some((m) => m.type === "watching")) {
      if (Date.now() > deadline) throw new Error(`no "watching" from ${nodeUrl}: ${JSON.stringify(spectator.messages)}`);
      await Bun.sleep(10);
    }
    return spectator;
  }

  close(): void {
    this.socket.close();
  }
}

/** What one spectator got wrong: a message twice, or a hand of the new host missing. */
export interface StreamFaults {
  /** Hand numbers whose hand_started (or hand_ended) arrived more than once. */
  doubled: number[];
  /** After the resumption: numbers between two consecutive hand_started that never arrived. */
  gaps: number[];
  /** hand_started messages checked after the resumption. */
  checkedAfterResume: number;
}

/**
 * Each message once and no gap: every hand_started and hand_ended at most once, and after the
 * match_resumed the new host's hands arrive one after another (it deals consecutive numbers).
 */
export function streamFaults(messages: Message[]): StreamFaults {
  const doubled = new Set<number>();
  for (const type of ["hand_started", "hand_ended"]) {
    const seen = new Set<number>();
    for (const m of messages) if (m.type === type) (seen.has(m.handNumber) ? doubled : seen).add(m.handNumber);
  }
  const resumedAt = messages.findIndex((m) => m.type === "match_resumed");
  const after = resumedAt < 0 ? [] : messages.slice(resumedAt).filter((m) => m.type === "hand_started").map((m) => m.handNumber as number);
  const gaps: number[] = [];
  for (let i = 1; i < after.length; i++) for (let n = after[i - 1] + 1; n < after[i]; n++) gaps.push(n);
  return { doubled: [...doubled], gaps, checkedAfterResume: after.length };
}
