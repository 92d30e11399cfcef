/**
 * A `TextEncoder` written in plain ECMAScript, for the isolate, which has
 * none; `deno task build` puts it in front of a service module that uses
 * `TextEncoder` as a global, as `pure_text_decoder.ts` is for `TextDecoder`.
 * It encodes to UTF-8 as the WHATWG Encoding Standard says (a lone surrogate
 * becomes U+FFFD), reaches for no global and holds no authority.
 *
 * @module
 */

/** What {@linkcode PureTextEncoder.encodeInto} read and wrote. */
export interface PureEncodeIntoResult {
  /** UTF-16 code units of the source consumed. */
  read: number;
  /** Bytes written into the destination. */
  written: number;
}

/**
 * Encodes text to UTF-8 bytes as the platform's `TextEncoder` does.
 *
 * @example
 * ```ts
 * new PureTextEncoder().encode("é"); // Uint8Array [0xC3, 0xA9]
 * ```
 */
export class PureTextEncoder {
  /** Always `utf-8`, as the platform's. */
  get encoding(): string {
    return "utf-8";
  }

  /**
   * The UTF-8 bytes of `input`.
   *
   * @param input The text; a lone surrogate in it is written as U+FFFD.
   * @returns A new `Uint8Array`.
   */
  encode(input: string = ""): Uint8Array {
    const text = String(input);
    const out = new Uint8Array(text.length * 3);
    const { written } = this.encodeInto(text, out);
    return out.slice(0, written);
  }

  /**
   * Writes the UTF-8 bytes of `source` into `destination`, as many whole
   * characters as fit.
   *
   * @param source The text.
   * @param destination Where the bytes go.
   * @returns How many code units were read and bytes written.
   */
  encodeInto(source: string, destination: Uint8Array): PureEncodeIntoResult {
    const text = String(source);
    let read = 0;
    let written = 0;
    while (read < text.length) {
      let codePoint = text.charCodeAt(read);
      let units = 1;
      if (codePoint >= 0xD800 && codePoint <= 0xDBFF && read + 1 < text.length) {
        const next = text.charCodeAt(read + 1);
        if (next >= 0xDC00 && next <= 0xDFFF) {
          codePoint = 0x10000 + ((codePoint - 0xD800) << 10) + (next - 0xDC00);
          units = 2;
        }
      }
      if (codePoint >= 0xD800 && codePoint <= 0xDFFF) codePoint = 0xFFFD;
      const size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
      if (written + size > destination.length) break;
      if (size === 1) destination[written] = codePoint;
      else if (size === 2) {
        destination[written] = 0xC0 | (codePoint >> 6);
        destination[written + 1] = 0x80 | (codePoint & 0x3F);
      } else if (size === 3) {
        destination[written] = 0xE0 | (codePoint >> 12);
        destination[written + 1] = 0x80 | ((codePoint >> 6) & 0x3F);
        destination[written + 2] = 0x80 | (codePoint & 0x3F);
      } else {
        destination[written] = 0xF0 | (codePoint >> 18);
        destination[written + 1] = 0x80 | ((codePoint >> 12) & 0x3F);
        destination[written + 2] = 0x80 | ((codePoint >> 6) & 0x3F);
        destination[written + 3] = 0x80 | (codePoint & 0x3F);
      }
      read += units;
      written += size;
    }
    return { read, written };
  }
}
