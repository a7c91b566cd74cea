/**
 * A sandbox worker thread: one QuickJS WebAssembly module, many bot contexts, one message at a
 * time. Untrusted code runs here only, never on the server's event loop. If the module itself
 * breaks (a WebAssembly trap), the reply says `fatal` and the pool replaces the whole worker.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant } from "quickjs-emscripten-core";
import { GuestContext, GuestFailure } from "./guest-context.ts";
import type { FromWorker, ToWorker } from "./messages.ts";

declare const self: Worker;

const module = await newQuickJSWASMModuleFromVariant(variant);
const contexts = new Map<number, GuestContext>();

function handle(message: ToWorker): FromWorker {
  const started = performance.now();
  const ms = () => performance.now() - started;
  let context: GuestContext | undefined;
  try {
    switch (message.op) {
      case "open": {
        context = new GuestContext(module, message.limits);
        contexts.set(message.contextId, context);
        context.load(message.code);
        return { id: message.id, ok: true, ms: ms(), logs: context.takeLogs() };
      }
      case "call": {
        context = contexts.get(message.contextId);
        if (!context) return { id: message.id, ok: false, ms: 0, logs: [], kind: "crashed", message: "no such context (lost with a replaced worker)" };
        const result = context.call(message.message, message.budgetMs, message.nowMs);
        return { id: message.id, ok: true, ms: ms(), logs: context.takeLogs(), result };
      }
      case "close":
        contexts.get(message.contextId)?.dispose();
        contexts.delete(message.contextId);
        return { id: message.id, ok: true, ms: 0, logs: [] };
      case "stats": {
        let heapBytes = 0;
        for (const c of contexts.values()) heapBytes += c.heapBytes();
        return { id: message.id, ok: true, ms: 0, logs: [], stats: { contexts: contexts.size, heapBytes } };
      }
    }
  } catch (error) {
    const logs = context?.takeLogs() ?? [];
    if (error instanceof GuestFailure) {
      if (message.op === "open") closeQuietly(message.contextId);
      return { id: message.id, ok: false, ms: ms(), logs, kind: error.kind, message: error.message };
    }
    // Not the guest's error but ours or the module's: nothing in this worker can be trusted now.
    return { id: message.id, ok: false, ms: ms(), logs, kind: "crashed", message: String(error).slice(0, 300), fatal: true };
  }
}

function closeQuietly(contextId: number): void {
  try {
    contexts.get(contextId)?.dispose();
  } catch {
    // A context that failed to load may not dispose cleanly; it goes either way.
  }
  contexts.delete(contextId);
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  self.postMessage(handle(event.data));
};
self.postMessage({ ready: true });
