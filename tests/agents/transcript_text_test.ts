import assert from "node:assert/strict";
import { transcriptText } from "../../runtime/agents/transcript_text.ts";
import type { TranscriptEntry } from "../../runtime/transcript.ts";

const AT = new Date(0).toISOString();
const said = (text: string): TranscriptEntry => ({ kind: "user", text, at: AT });
const bytesOf = (text: string) => new TextEncoder().encode(text).length;

Deno.test("`transcriptText()` keeps the end within characters and bytes", async (t) => {
  await t.step("a short transcript is whole", () => {
    assert.equal(transcriptText([said("hi")], 100, 100), "**Person:** hi");
  });

  await t.step("a long one keeps its end, after a mark saying how much went", () => {
    const text = transcriptText([said("a".repeat(1_000)), said("the end")], 200);
    assert.ok(text.length <= 200, String(text.length));
    assert.match(text, /^\[… [\d,]+ earlier characters left out\]\n\n/);
    assert.ok(text.endsWith("**Person:** the end"));
  });

  await t.step("text of many bytes a character is cut by its bytes too", () => {
    const text = transcriptText([said("漢".repeat(200_000)), said("終")], 500_000, 524_288);
    assert.ok(bytesOf(text) <= 524_288, String(bytesOf(text)));
    assert.ok(text.length > 100_000, "as much as the bytes allow is kept");
    assert.ok(text.endsWith("**Person:** 終"));
  });

  await t.step("a character of two halves is kept or left out whole", () => {
    const text = transcriptText([said("😀".repeat(5_000))], 100_000, 1_000);
    assert.ok(bytesOf(text) <= 1_000);
    const kept = text.slice(text.indexOf("\n\n") + 2);
    assert.doesNotMatch(
      kept,
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });
});
