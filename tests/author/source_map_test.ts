import assert from "node:assert/strict";
import { originalPlace, type SourceMap } from "../../runtime/author/source_map.ts";

/**
 * The map `deno bundle --sourcemap` wrote for this module, built from
 * `src/util.ts` (lines 1–3) and `src/main.ts` (lines 1–5):
 *
 * ```
 *  1 // src/util.ts
 *  2 function twice(n) {
 *  3   return n * 2;
 *  4 }
 *  5
 *  6 // src/main.ts
 *  7 var x = 4;
 *  8 console.log(twice(x));
 *  9 throw new Error("boom");
 * ```
 */
const BUNDLED: SourceMap = {
  sources: ["src/util.ts", "src/main.ts"],
  mappings:
    ";AAAO,SAAS,MAAM,GAAS;AAC7B,SAAO,IAAI;AACb;;;ACAA,IAAM,IAAY;AAClB,QAAQ,IAAI,MAAM,CAAA,CAAA;AAClB,MAAM,IAAI,MAAM,MAAA;",
};

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** One mapping segment holding `values`, as a bundler writes it (base64 VLQ). */
function segment(...values: number[]): string {
  let out = "";
  for (const value of values) {
    let rest = value < 0 ? (-value << 1) | 1 : value << 1;
    do {
      let digit = rest & 31;
      rest >>>= 5;
      if (rest > 0) digit |= 32;
      out += BASE64[digit];
    } while (rest > 0);
  }
  return out;
}

Deno.test("`originalPlace()` finds where a place in a built module came from", async (t) => {
  await t.step("a place on a mapped line answers the segment at its column", () => {
    assert.deepEqual(originalPlace(BUNDLED, 9, 11), { file: "src/main.ts", line: 5, column: 11 });
    assert.deepEqual(originalPlace(BUNDLED, 3, 3), { file: "src/util.ts", line: 2, column: 3 });
  });

  await t.step("a column between segments answers the segment before it", () => {
    // `Error` starts at column 11 and runs to 15; its segment covers them all.
    assert.deepEqual(originalPlace(BUNDLED, 9, 14), { file: "src/main.ts", line: 5, column: 11 });
    assert.deepEqual(originalPlace(BUNDLED, 9, 1), { file: "src/main.ts", line: 5, column: 1 });
  });

  await t.step("the source and its line carry over from one line to the next", () => {
    assert.deepEqual(originalPlace(BUNDLED, 7, 1), { file: "src/main.ts", line: 3, column: 1 });
    assert.deepEqual(originalPlace(BUNDLED, 8, 1), { file: "src/main.ts", line: 4, column: 1 });
  });

  await t.step("a line the map says nothing about answers undefined", () => {
    assert.equal(originalPlace(BUNDLED, 1, 1), undefined, "the bundler's comment");
    assert.equal(originalPlace(BUNDLED, 5, 1), undefined, "an empty line");
    assert.equal(originalPlace(BUNDLED, 10, 1), undefined, "the last, empty line");
    assert.equal(originalPlace(BUNDLED, 40, 1), undefined, "past the end of the map");
  });

  await t.step("a column before the line's first segment answers undefined", () => {
    const map = { sources: ["src/a.ts"], mappings: segment(4, 0, 0, 0) };
    assert.equal(originalPlace(map, 1, 4), undefined);
    assert.deepEqual(originalPlace(map, 1, 5), { file: "src/a.ts", line: 1, column: 1 });
  });

  await t.step("a segment with only a column moves the column but names no place", () => {
    const map = {
      sources: ["src/a.ts"],
      mappings: [segment(0, 0, 2, 4), segment(6), segment(3, 0, 1, 0)].join(","),
    };
    assert.deepEqual(originalPlace(map, 1, 7), { file: "src/a.ts", line: 3, column: 5 });
    assert.deepEqual(originalPlace(map, 1, 10), { file: "src/a.ts", line: 4, column: 5 });
  });

  await t.step("large and negative steps decode", () => {
    const map = {
      sources: ["src/a.ts", "src/b.ts"],
      mappings: [
        [segment(0, 1, 1000, 40)].join(","),
        [segment(2, -1, -990, -38)].join(","),
      ].join(";"),
    };
    assert.deepEqual(originalPlace(map, 1, 1), { file: "src/b.ts", line: 1001, column: 41 });
    assert.deepEqual(originalPlace(map, 2, 3), { file: "src/a.ts", line: 11, column: 3 });
  });

  await t.step("a segment naming a source the map does not list is passed over", () => {
    const map = {
      sources: ["src/a.ts"],
      mappings: [segment(0, 0, 0, 0), segment(5, 3, 0, 0)].join(","),
    };
    assert.deepEqual(originalPlace(map, 1, 9), { file: "src/a.ts", line: 1, column: 1 });
  });
});
