import assert from "node:assert/strict";
import {
  type EvidenceSegment,
  resolveQuote,
  segmentSource,
} from "../../runtime/attention/evidence.ts";

const LETTER = [
  "Hello Ana,",
  "",
  "The invoice for March (No. 2026-031) is due on Friday 13 March. Please pay it by then,",
  "or the late fee of 40 EUR applies.",
  "",
  "Best, Ben",
].join("\n");

Deno.test("`segmentSource()` numbers a source's text in segments of the original", async (t) => {
  await t.step("each at most 800 characters, joined back the passage exactly", () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} says a little more.`).join(
      " ",
    );
    const segments = segmentSource("mail.thread/a", [long]);
    assert.ok(segments.length > 1);
    for (const segment of segments) assert.ok(segment.text.length <= 800, `${segment.text.length}`);
    assert.equal(segments.map((s) => s.text).join(""), long);
    assert.deepEqual(segments.map((s) => s.segment), segments.map((_, i) => i + 1));
    // Cut after a sentence, not inside a word.
    assert.match(segments[0].text, /more\. $/);
  });

  await t.step("disjoint passages keep their own boundaries", () => {
    const segments = segmentSource("mail.thread/a", ["First message.", "", "Second message."]);
    assert.deepEqual(segments.map((s) => [s.segment, s.passage, s.start, s.text]), [
      [1, 0, 0, "First message."],
      [2, 2, 0, "Second message."],
    ]);
  });

  await t.step("a character written as two is never split", () => {
    const text = "a" + "😀".repeat(10);
    const segments = segmentSource("s", [text], { maxChars: 4 });
    assert.equal(segments.map((s) => s.text).join(""), text);
    for (const segment of segments) {
      assert.ok(!/[\ud800-\udbff]$/.test(segment.text), JSON.stringify(segment.text));
    }
  });
});

Deno.test("`resolveQuote()` turns a citation into an exact quote of the original, or refuses it", async (t) => {
  const segments = new Map<string, EvidenceSegment[]>([
    ["mail.thread/a", segmentSource("mail.thread/a", [LETTER])],
  ]);

  await t.step("a segment cited whole is its text", () => {
    assert.deepEqual(resolveQuote(segments, { source: "mail.thread/a", segment: 1 }), {
      ok: true,
      source: "mail.thread/a",
      segment: 1,
      quote: LETTER,
      restored: false,
    });
  });

  await t.step("a quote found as it is stands", () => {
    const resolved = resolveQuote(segments, {
      source: "mail.thread/a",
      segment: 1,
      quote: "is due on Friday 13 March",
    });
    assert.deepEqual(resolved, {
      ok: true,
      source: "mail.thread/a",
      segment: 1,
      quote: "is due on Friday 13 March",
      restored: false,
    });
  });

  await t.step("a quote differing only in whitespace is restored to the exact span", () => {
    const resolved = resolveQuote(segments, {
      source: "mail.thread/a",
      segment: 1,
      quote: "  Please pay it by then, or the late   fee ",
    });
    assert.ok(resolved.ok);
    assert.equal(resolved.quote, "Please pay it by then,\nor the late fee");
    assert.equal(resolved.restored, true);
    assert.ok(LETTER.includes(resolved.quote));
  });

  await t.step("rewritten, translated and ambiguous quotes are not evidence", () => {
    for (
      const quote of [
        "The invoice is due Friday",
        "La factura vence el viernes",
        "the invoice for march",
      ]
    ) {
      const resolved = resolveQuote(segments, { source: "mail.thread/a", segment: 1, quote });
      assert.equal(resolved.ok, false, quote);
      assert.match(!resolved.ok ? resolved.reason : "", /not translated or rewritten/);
    }
    const twice = resolveQuote(segments, { source: "mail.thread/a", segment: 1, quote: "the" });
    assert.equal(twice.ok, false);
    assert.match(!twice.ok ? twice.reason : "", /found 2 times in segment 1; quote more of it/);
    const spaced = new Map([["s", segmentSource("s", ["due  Friday and due Friday"])]]);
    const both = resolveQuote(spaced, { source: "s", segment: 1, quote: "due\tFriday" });
    assert.equal(both.ok, false);
    assert.match(!both.ok ? both.reason : "", /matches 2 places/);
  });

  await t.step("an unknown source or segment fails closed", () => {
    for (
      const ref of [
        { source: "mail.thread/b", segment: 1 },
        { source: "mail.thread/a", segment: 2 },
        { source: "mail.thread/a", segment: 0 },
        { source: "mail.thread/a", segment: 1.5 },
        { source: "mail.thread/a", segment: 1, quote: "   " },
      ]
    ) {
      const resolved = resolveQuote(segments, ref);
      assert.equal(resolved.ok, false, JSON.stringify(ref));
    }
    const none = resolveQuote(segments, { source: "mail.thread/a", segment: 9 });
    assert.match(!none.ok ? none.reason : "", /has no segment 9 \(it has 1 to 1\)/);
  });
});
