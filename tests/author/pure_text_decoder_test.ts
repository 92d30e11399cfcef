import assert from "node:assert/strict";
import { PureTextDecoder } from "../../runtime/author/polyfill/pure_text_decoder.ts";

const ENCODINGS = ["utf-8", "windows-1252", "utf-16le"] as const;

/** A small seeded generator, so a failure names bytes that come back on the next run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6D2B79F5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Byte sequences that stress decoders: mostly the bytes around sequence and surrogate edges. */
function sequences(count: number, seed: number): Uint8Array[] {
  const next = random(seed);
  const edges = [
    0x00,
    0x41,
    0x7F,
    0x80,
    0x81,
    0x8F,
    0x90,
    0x9F,
    0xA0,
    0xBF,
    0xC0,
    0xC1,
    0xC2,
    0xDF,
    0xD8,
    0xDB,
    0xDC,
    0xDD,
    0xE0,
    0xED,
    0xEF,
    0xF0,
    0xF4,
    0xF5,
    0xFE,
    0xFF,
  ];
  const out: Uint8Array[] = [];
  for (let n = 0; n < count; n++) {
    const length = 1 + Math.floor(next() * 12);
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) {
      bytes[i] = next() < 0.7 ? edges[Math.floor(next() * edges.length)] : Math.floor(next() * 256);
    }
    out.push(bytes);
  }
  return out;
}

function outcome(decode: () => string): string {
  try {
    return `text ${JSON.stringify(decode())}`;
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");

Deno.test("`PureTextDecoder` decodes as Deno's own TextDecoder", async (t) => {
  await t.step("every single byte and every pair of bytes, in each encoding", () => {
    for (const encoding of ENCODINGS) {
      const ours = new PureTextDecoder(encoding);
      const theirs = new TextDecoder(encoding);
      for (let a = 0; a < 256; a++) {
        const one = new Uint8Array([a]);
        assert.equal(ours.decode(one), theirs.decode(one), `${encoding} ${hex(one)}`);
        for (let b = 0; b < 256; b++) {
          const two = new Uint8Array([a, b]);
          assert.equal(ours.decode(two), theirs.decode(two), `${encoding} ${hex(two)}`);
        }
      }
    }
  });

  await t.step("20,000 edge-heavy sequences, replacing invalid UTF-8 with U+FFFD", () => {
    for (const encoding of ENCODINGS) {
      const ours = new PureTextDecoder(encoding);
      const theirs = new TextDecoder(encoding);
      for (const bytes of sequences(20_000, 26)) {
        assert.equal(ours.decode(bytes), theirs.decode(bytes), `${encoding} ${hex(bytes)}`);
      }
    }
    assert.equal(
      new PureTextDecoder().decode(new Uint8Array([0x61, 0xF0, 0x9F, 0x62])),
      "a\uFFFDb",
    );
    assert.equal(
      new PureTextDecoder().decode(new Uint8Array([0xED, 0xA0, 0x80])),
      "\uFFFD".repeat(3),
    );
  });

  await t.step("fatal mode throws exactly where Deno's does", () => {
    for (const encoding of ENCODINGS) {
      for (const bytes of sequences(5_000, 7)) {
        assert.equal(
          outcome(() => new PureTextDecoder(encoding, { fatal: true }).decode(bytes)),
          outcome(() => new TextDecoder(encoding, { fatal: true }).decode(bytes)),
          `${encoding} ${hex(bytes)}`,
        );
      }
    }
  });

  await t.step("stream: true carries an unfinished sequence across every split", () => {
    for (const encoding of ENCODINGS) {
      for (const bytes of sequences(2_000, 11)) {
        for (let at = 0; at <= bytes.length; at++) {
          const ours = new PureTextDecoder(encoding);
          const theirs = new TextDecoder(encoding);
          const split = (d: { decode: TextDecoder["decode"] }) =>
            d.decode(bytes.subarray(0, at), { stream: true }) + d.decode(bytes.subarray(at));
          assert.equal(split(ours), split(theirs), `${encoding} ${hex(bytes)} at ${at}`);
        }
      }
    }
  });

  await t.step("a leading BOM is dropped unless ignoreBOM, and real text round-trips", () => {
    const text = "Grüße, 世界 🙂 — «ok»";
    const utf8 = new TextEncoder().encode(`\uFEFF${text}`);
    assert.equal(new PureTextDecoder().decode(utf8), text);
    assert.equal(new PureTextDecoder("utf-8", { ignoreBOM: true }).decode(utf8), `\uFEFF${text}`);
    const utf16 = new Uint8Array(
      new Uint16Array([...`\uFEFF${text}`].flatMap((c) => {
        const units = [];
        for (let i = 0; i < c.length; i++) units.push(c.charCodeAt(i));
        return units;
      })).buffer,
    );
    assert.equal(new PureTextDecoder("utf-16le").decode(utf16), text);
    assert.equal(new PureTextDecoder("utf-16le").decode(utf16.buffer), text);
    assert.equal(new PureTextDecoder("utf-8").decode(new DataView(utf8.buffer, 3)), text);
  });

  await t.step("labels name the encodings the platform's do, and others are refused", () => {
    for (
      const label of ["latin1", " ISO-8859-1 ", "us-ascii", "cp1252", "utf8", "UTF-16", "ucs-2"]
    ) {
      assert.equal(new PureTextDecoder(label).encoding, new TextDecoder(label).encoding, label);
    }
    assert.throws(() => new PureTextDecoder("klingon"), RangeError);
    assert.throws(() => new PureTextDecoder().decode("text" as unknown as Uint8Array), TypeError);
    assert.equal(new PureTextDecoder().decode(), "");
  });
});
