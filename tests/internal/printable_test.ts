import assert from "node:assert/strict";
import { printable, printableLines } from "../../runtime/internal/printable.ts";

Deno.test("`printable()` escapes what a terminal acts on and keeps the rest as it is", async (t) => {
  await t.step("line breaks, tabs, ESC, BEL, DEL and C1 controls become escapes", () => {
    assert.equal(
      printable("a\n[other] forged line\u001b]0;title\u0007"),
      String.raw`a\n[other] forged line\u001b]0;title\u0007`,
    );
    assert.equal(printable("\r\t\0\u007f\u0085\u009b"), String.raw`\r\t\u0000\u007f\u0085\u009b`);
  });

  await t.step("bidirectional overrides, isolates and marks, and U+2028/2029 are escaped", () => {
    const bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
    assert.equal(
      printable(bidi),
      String.raw`\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c`,
    );
    assert.equal(printable("a\u2028b\u2029c"), String.raw`a\u2028b\u2029c`);
  });

  await t.step("a lone surrogate is shown as itself, a pair is kept", () => {
    assert.equal(printable("x\ud83dy"), String.raw`x\ud83dy`);
    assert.equal(printable("😀 ünïcødé 漢字 \\n"), "😀 ünïcødé 漢字 \\n");
  });

  await t.step("escaping twice changes nothing", () => {
    const hostile = "a\n\r\u001b[2J\u202e\u0085\ud800";
    assert.equal(printable(printable(hostile)), printable(hostile));
    assert.equal(printableLines(printable(hostile)), printable(hostile));
  });
});

Deno.test("`printableLines()` keeps line breaks and tabs and escapes every other control", () => {
  assert.equal(printableLines("one\n\ttwo\r\u001b[31m\u202e"), "one\n\ttwo\\r\\u001b[31m\\u202e");
});

Deno.test("JSON made printable is the same JSON", () => {
  const value = {
    text: "a\n[other]\u001b]0;t\u0007 \u009b31m \u202eevil\u202c \u2028 \u007f \ud800 😀",
    [`key\u202e`]: ["\u0085"],
  };
  for (const json of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
    const shown = printableLines(json);
    assert.deepEqual(JSON.parse(shown), value);
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/.test(shown));
  }
});
