import assert from "node:assert/strict";
import { codeSpans } from "../../ui/chat/code_spans.ts";

Deno.test("`codeSpans()` splits words on backticks into plain and code runs", async (t) => {
  await t.step("a pair of backticks makes a code run, without them", () => {
    assert.deepEqual(codeSpans("Requires setting the `DEMO_KEY` variable"), [
      { text: "Requires setting the ", code: false },
      { text: "DEMO_KEY", code: true },
      { text: " variable", code: false },
    ]);
  });
  await t.step("words with no backtick are one plain run; empty text is none", () => {
    assert.deepEqual(codeSpans("Sign in"), [{ text: "Sign in", code: false }]);
    assert.deepEqual(codeSpans(""), []);
  });
  await t.step("code at either end, and two runs side by side", () => {
    assert.deepEqual(codeSpans("`a` and `b`"), [
      { text: "a", code: true },
      { text: " and ", code: false },
      { text: "b", code: true },
    ]);
  });
  await t.step("a backtick without its pair stays as the character it is", () => {
    assert.deepEqual(codeSpans("run `npx -y x` then ` alone"), [
      { text: "run ", code: false },
      { text: "npx -y x", code: true },
      { text: " then ` alone", code: false },
    ]);
    assert.deepEqual(codeSpans("it`s"), [{ text: "it`s", code: false }]);
  });
  await t.step("an empty pair leaves nothing behind; markup stays text", () => {
    assert.deepEqual(codeSpans("a `` b `<b>x</b>`"), [
      { text: "a  b ", code: false },
      { text: "<b>x</b>", code: true },
    ]);
  });
});
