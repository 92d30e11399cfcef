import assert from "node:assert/strict";
import { benchMessages } from "./applet_goals.ts";
import { byGoalNumber, type Goal, goalMet } from "./goal_report.ts";

Deno.test("byGoalNumber() orders goals by number, then letter, keeping ties in order", () => {
  const goal = (name: string): Goal => ({
    name,
    formula: "",
    measured: 1,
    direction: "at most",
    unit: "×",
  });
  const names = ["8b. x", "3d. y", "10. z", "1a. a", "3d. y, info", "2. m", "1b. b", "3a. c"];
  assert.deepEqual(
    names.map(goal).sort(byGoalNumber).map((g) => g.name),
    ["1a. a", "1b. b", "2. m", "3a. c", "3d. y", "3d. y, info", "8b. x", "10. z"],
  );
});

Deno.test("`goalMet()` fails a goal not measured, and `benchMessages()` reads the count", async (t) => {
  await t.step("a NaN measure meets no limit, either way", () => {
    const base = { name: "9b. x", formula: "", measured: NaN, limit: 0 } as const;
    assert.equal(goalMet({ ...base, direction: "at most", unit: "count" }), false);
    assert.equal(goalMet({ ...base, direction: "at least", unit: "/s" }), false);
  });
  await t.step("--quick is 1,000 messages, and a bad SYNC_BENCH_MESSAGES is refused", () => {
    const before = Deno.env.get("SYNC_BENCH_MESSAGES");
    try {
      Deno.env.delete("SYNC_BENCH_MESSAGES");
      assert.equal(benchMessages(["--quick"]), 1_000);
      assert.equal(benchMessages([]), 10_000);
      Deno.env.set("SYNC_BENCH_MESSAGES", "2500");
      assert.equal(benchMessages(["--quick"]), 2_500);
      Deno.env.set("SYNC_BENCH_MESSAGES", "many");
      assert.throws(() => benchMessages([]), /SYNC_BENCH_MESSAGES is "many"/);
    } finally {
      if (before === undefined) Deno.env.delete("SYNC_BENCH_MESSAGES");
      else Deno.env.set("SYNC_BENCH_MESSAGES", before);
    }
  });
});
