import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { promtool } from "../support/promtool";

const DIR = join(import.meta.dir, "../../ops/prometheus");

describe("ops/prometheus alert rules", () => {
  test("promtool check rules passes", async () => {
    const checked = await promtool(["check", "rules", "alerts.yml"], undefined, DIR);
    expect(checked.output).toContain("SUCCESS");
    expect(checked.code).toBe(0);
  });

  test("promtool test rules passes", async () => {
    const tested = await promtool(["test", "rules", "alerts.test.yml"], undefined, DIR);
    expect(tested.output).toContain("SUCCESS");
    expect(tested.code).toBe(0);
  });

  test("every alert has a summary and a unit test that sees it fire", async () => {
    const rules = await Bun.file(join(DIR, "alerts.yml")).text();
    const tests = await Bun.file(join(DIR, "alerts.test.yml")).text();
    const alerts = [...rules.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    expect((rules.match(/summary:/g) ?? []).length).toBe(alerts.length);
    // An alertname followed (before the next alertname) by expected alerts that are not empty.
    const firing = new Set([...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:\n\s+- exp_labels/g)].map((m) => m[1]));
    expect(alerts.filter((a) => !firing.has(a))).toEqual([]);
  });
});
