import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/process";
import { DECISION_CASES_PURE } from "./decision-cases-pure";
import { DECISION_CASES_SERVICE, serviceHarness } from "./decision-cases-service";
import { DECISION_CASES_TABLES } from "./decision-cases-tables";

/**
 * docs/ARCHITECTURE.md's "Where is it decided?" held against the code by use, not only by name
 * (issue 34): every row of the table has a case here that calls the function the row names with an
 * input and checks the decision it returns. A row added without a case, or a case left for a row
 * that is gone, fails the first test.
 */
const doc = readFileSync(join(ROOT, "docs/ARCHITECTURE.md"), "utf8");
const section = doc.slice(doc.indexOf("## Where is it decided?"), doc.indexOf("## The life of a request"));
const questions = section
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| question") && !line.startsWith("|---"))
  .map((line) => line.split("|")[1].trim());

const CASES = [...DECISION_CASES_PURE, ...DECISION_CASES_SERVICE, ...DECISION_CASES_TABLES];

describe("every 'Where is it decided?' row decides what it says", () => {
  const harness = serviceHarness();

  test("each row has exactly one case and each case a row", () => {
    expect(questions.length).toBeGreaterThanOrEqual(30);
    const matches = questions.map((question) => ({ question, cases: CASES.filter((c) => c.question.test(question)).length }));
    expect(matches.filter((m) => m.cases !== 1)).toEqual([]);
    const orphans = CASES.filter((c) => !questions.some((question) => c.question.test(question))).map((c) => String(c.question));
    expect(orphans).toEqual([]);
    expect(CASES.length).toBe(questions.length);
  });

  for (const decision of CASES) {
    test(String(decision.question), async () => {
      const checks = await decision.decide(harness);
      // Each case counts the decisions it checked: none would be a case that proves nothing.
      expect(checks).toBeGreaterThanOrEqual(2);
    });
  }
});
