import assert from "node:assert/strict";
import { byGoalNumber, type Goal } from "./goal_report.ts";

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
