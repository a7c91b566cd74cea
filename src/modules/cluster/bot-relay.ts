import { NoResponderError, type Subscription } from "../../lib/bus/bus";
import type { BotGateway, GatewayRelay, ServerMessage } from "../protocol/gateway";
import type { ClusterNode } from "./node";

const DISCONNECTED = "__disconnected";

/**
 * Bots connect to any node. The node holding a bot's socket subscribes to its `out` subject and
 * delivers what the table's host sends there; the host subscribes to the bot's `in` subject while
 * it asks the bot, and answers come back to it as requests (the reply carries any error for the bot).
 * One socket per bot across the cluster: a connect anywhere closes the bot's socket everywhere else.
 */
export class BotRelay implements GatewayRelay {
  private readonly outboxes = new Map<string, Subscription>();
  private readonly inboxes = new Map<string, Subscription>();
  private connectedSubscription: Subscription | undefined;

  constructor(
    private readonly node: ClusterNode,
    private readonly gateway: BotGateway,
  ) {}

  start(): void {
    this.gateway.relay = this;
    this.connectedSubscription = this.node.bus.subscribe(this.node.subjects.anyBotConnected, (message) => {
      if (typeof message.botId !== "string") return;
      if (message.revoked === true) return void this.gateway.revoke(message.botId);
      if (message.node === this.node.hostId) return;
      this.gateway.dropReplaced(message.botId);
      this.gateway.resendState(message.botId);
    });
  }

  /** Every node (this one included) closes the bot's socket opened with its old key. */
  revokeEverywhere(botId: string): void {
    this.gateway.revoke(botId);
    this.node.bus.publish(this.node.subjects.botConnected(botId), { botId, revoked: true });
  }

  toBot(botId: string, message: ServerMessage): void {
    this.node.bus.publish(this.node.subjects.botOut(botId), message);
  }

  async forwardAnswer(botId: string, message: Record<string, unknown>): Promise<ServerMessage | null> {
    try {
      const reply = await this.node.bus.request(this.node.subjects.botIn(botId), message, 2_000);
      return reply.type === "error" ? (reply as ServerMessage) : null;
    } catch (error) {
      if (!(error instanceof NoResponderError)) return null;
      return this.gateway.answer(botId, message);
    }
  }

  socketOpened(botId: string): void {
    if (!this.outboxes.has(botId)) {
      this.outboxes.set(
        botId,
        this.node.bus.subscribe(this.node.subjects.botOut(botId), (message) => this.gateway.deliverLocally(botId, message as ServerMessage)),
      );
    }
    this.node.bus.publish(this.node.subjects.botConnected(botId), { botId, node: this.node.hostId });
  }

  socketClosed(botId: string): void {
    this.socketGone(botId);
    this.node.bus.publish(this.node.subjects.botIn(botId), { type: DISCONNECTED });
  }

  socketGone(botId: string): void {
    this.outboxes.get(botId)?.unsubscribe();
    this.outboxes.delete(botId);
  }

  listen(botId: string): void {
    if (this.inboxes.has(botId)) return;
    this.inboxes.set(
      botId,
      this.node.bus.subscribe(this.node.subjects.botIn(botId), (message) => {
        if (message.type === DISCONNECTED) return void this.gateway.relayedDisconnect(botId);
        return this.gateway.answer(botId, message) ?? { type: "ok" };
      }),
    );
  }

  stopListening(botId: string): void {
    this.inboxes.get(botId)?.unsubscribe();
    this.inboxes.delete(botId);
  }

  stop(): void {
    this.connectedSubscription?.unsubscribe();
    for (const subscription of [...this.outboxes.values(), ...this.inboxes.values()]) subscription.unsubscribe();
    this.outboxes.clear();
    this.inboxes.clear();
    this.gateway.relay = undefined;
  }
}
