import assert from "node:assert/strict";
import { cutText } from "../../runtime/internal/cut_text.ts";

Deno.test("`cutText()` keeps text that fits and cuts the rest visibly", async (t) => {
  await t.step("text that fits is kept as it is", () => {
    assert.equal(cutText("", 100), "");
    assert.equal(cutText("x".repeat(100), 100), "x".repeat(100));
  });

  await t.step("longer text keeps its start and says how much was cut, within the size", () => {
    const cut = cutText("x".repeat(100_000), 4096);
    assert.ok(cut.length <= 4096, `${cut.length}`);
    const kept = cut.indexOf("…");
    assert.equal(
      cut.slice(kept),
      `… [cut: ${(100_000 - kept).toLocaleString("en-US")} more characters]`,
    );
    assert.equal(cut.slice(0, kept), "x".repeat(kept));
  });

  await t.step("a surrogate pair is never split", () => {
    const text = "😀".repeat(100);
    for (let max = 40; max < 80; max++) {
      const cut = cutText(text, max);
      assert.ok(cut.length <= max);
      const kept = cut.slice(0, cut.indexOf("…"));
      assert.equal(kept, "😀".repeat(kept.length / 2), `cut at ${max}`);
    }
  });
});
