import assert from "node:assert/strict";
import { consoleLine } from "../../runtime/host/console_line.ts";

Deno.test("`consoleLine()` prints one console entry as one line of its package", () => {
  assert.equal(consoleLine("box", "log", "hello"), "[box] hello");
  assert.equal(consoleLine("box", "warn", "careful"), "[box] warn: careful");
  assert.equal(
    consoleLine("box", "log", "a\n[other] forged line\u001b]0;title\u0007"),
    String.raw`[box] a\n[other] forged line\u001b]0;title\u0007`,
  );
});
