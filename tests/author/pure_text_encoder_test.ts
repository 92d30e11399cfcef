import assert from "node:assert/strict";
import { PureTextEncoder } from "../../runtime/author/polyfill/pure_text_encoder.ts";

/** Strings of code units chosen around the edges of UTF-8's lengths and of surrogates. */
function strings(count: number): string[] {
  let state = 2026;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const edges = [
    0x00,
    0x41,
    0x7F,
    0x80,
    0x7FF,
    0x800,
    0xD7FF,
    0xD800,
    0xDBFF,
    0xDC00,
    0xDFFF,
    0xE000,
    0xFEFF,
    0xFFFD,
    0xFFFF,
  ];
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const units: number[] = [];
    const length = 1 + Math.floor(next() * 10);
    for (let i = 0; i < length; i++) {
      units.push(
        next() < 0.6 ? edges[Math.floor(next() * edges.length)] : Math.floor(next() * 0x10000),
      );
    }
    out.push(String.fromCharCode(...units));
  }
  return out;
}

Deno.test("`PureTextEncoder` encodes as Deno's own TextEncoder", async (t) => {
  const ours = new PureTextEncoder();
  const theirs = new TextEncoder();

  await t.step("every code unit alone, and 20,000 strings with lone and paired surrogates", () => {
    for (let unit = 0; unit < 0x10000; unit++) {
      const text = String.fromCharCode(unit);
      assert.deepEqual(ours.encode(text), theirs.encode(text), unit.toString(16));
    }
    for (const text of [...strings(20_000), "Grüße, 世界 🙂", ""]) {
      assert.deepEqual(ours.encode(text), theirs.encode(text), JSON.stringify(text));
    }
    assert.equal(ours.encoding, "utf-8");
  });

  await t.step("encodeInto writes only whole characters that fit", () => {
    for (const text of strings(2_000)) {
      for (let size = 0; size <= 12; size++) {
        const a = new Uint8Array(size);
        const b = new Uint8Array(size);
        assert.deepEqual(
          ours.encodeInto(text, a),
          theirs.encodeInto(text, b),
          JSON.stringify(text),
        );
        assert.deepEqual(a, b);
      }
    }
  });
});
