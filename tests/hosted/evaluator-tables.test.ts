import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { evaluateCards } from "@poker-bots/core/evaluator";
import { parseCard } from "@poker-bots/core/cards";
import { createSandbox } from "../../src/modules/hosted/sandbox/index.ts";
import { sampleRequest } from "../../src/modules/hosted/sample.ts";
import { checksum, sevenCardHands } from "./fixtures/hand-values";
import { bundleFixture } from "./support";

// Worker threads on a shared, loaded machine: these wait on the sandbox, not on a clock.
setDefaultTimeout(30_000);

const sandbox = createSandbox({ workers: 1 });
afterAll(() => sandbox.close());

// The sandbox hands every context a copy of the evaluator's tables instead of letting QuickJS build
// them (~1 s a context): the values inside must be the very ones the host computes.
describe("evaluator tables handed into the sandbox", () => {
  test("5,000 seeded hands evaluate inside a hosted bot exactly as on the host", async () => {
    const hands = sevenCardHands(5_000);
    expect(hands.length).toBe(5_000);
    const onHost = checksum(hands.map((cards) => evaluateCards(cards.map(parseCard))));
    const seat = await sandbox.open(await bundleFixture("hand-values"));
    const decision = await seat.decide(sampleRequest("flop"), { budgetMs: 10_000 });
    expect(decision.ok).toBe(true);
    const lines = seat.logs().map((line) => line.text).filter((text) => text.startsWith("checksum="));
    expect(lines).toEqual([`checksum=${onHost}`]);
    await seat.close();
  });
});
