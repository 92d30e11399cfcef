/**
 * A `TextDecoder` written in plain ECMAScript, for the isolate, which has
 * none. `deno task build` bundles it into a service module whose code (most
 * often an npm library's) uses `TextDecoder` as a global, as a module-level
 * binding of that name, so nothing global is changed and a module that does
 * not use it does not carry it. It is a pure function of the bytes it is
 * given: it reaches for no global and holds no authority.
 *
 * It follows the WHATWG Encoding Standard's decoders for UTF-8, windows-1252
 * (which the standard also names iso-8859-1, latin1 and us-ascii) and
 * UTF-16LE, with its labels, byte order mark handling, `fatal` mode, and
 * `stream: true` carrying an unfinished sequence into the next call; an
 * invalid sequence becomes U+FFFD as the standard says.
 *
 * @module
 */

/** Options for the {@linkcode PureTextDecoder} constructor, as the platform's. */
export interface PureTextDecoderOptions {
  /** Throw a `TypeError` on invalid input instead of writing U+FFFD. */
  fatal?: boolean;
  /** Keep a leading byte order mark in the text. */
  ignoreBOM?: boolean;
}

/** Options for {@linkcode PureTextDecoder.decode}. */
export interface PureDecodeOptions {
  /** More input follows: an unfinished sequence at the end waits for the next call. */
  stream?: boolean;
}

type Encoding = "utf-8" | "windows-1252" | "utf-16le";

const LABELS = new Map<string, Encoding>([
  ...[
    "unicode-1-1-utf-8",
    "unicode11utf8",
    "unicode20utf8",
    "utf-8",
    "utf8",
    "x-unicode20utf8",
  ].map((label) => [label, "utf-8"] as const),
  ...[
    "ansi_x3.4-1968",
    "ascii",
    "cp1252",
    "cp819",
    "csisolatin1",
    "ibm819",
    "iso-8859-1",
    "iso-ir-100",
    "iso8859-1",
    "iso88591",
    "iso_8859-1",
    "iso_8859-1:1987",
    "l1",
    "latin1",
    "us-ascii",
    "windows-1252",
    "x-cp1252",
  ].map((label) => [label, "windows-1252"] as const),
  ...["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]
    .map((label) => [label, "utf-16le"] as const),
]);

/** windows-1252's code points for the bytes 0x80–0x9F; every other byte is its own code point. */
const WINDOWS_1252_HIGH = [
  0x20AC,
  0x81,
  0x201A,
  0x192,
  0x201E,
  0x2026,
  0x2020,
  0x2021,
  0x2C6,
  0x2030,
  0x160,
  0x2039,
  0x152,
  0x8D,
  0x17D,
  0x8F,
  0x90,
  0x2018,
  0x2019,
  0x201C,
  0x201D,
  0x2022,
  0x2013,
  0x2014,
  0x2DC,
  0x2122,
  0x161,
  0x203A,
  0x153,
  0x9D,
  0x17E,
  0x178,
];

const REPLACEMENT = 0xFFFD;

/**
 * Decodes bytes to text as the platform's `TextDecoder` does, for UTF-8,
 * windows-1252 (iso-8859-1, latin1) and UTF-16LE.
 *
 * @example
 * ```ts
 * new PureTextDecoder("latin1").decode(new Uint8Array([0x63, 0x61, 0x66, 0xE9])); // "café"
 * new PureTextDecoder().decode(new Uint8Array([0x61, 0xFF])); // "a\uFFFD"
 * ```
 */
export class PureTextDecoder {
  readonly #encoding: Encoding;
  readonly #fatal: boolean;
  readonly #ignoreBOM: boolean;
  // UTF-8 state, the standard's names.
  #needed = 0;
  #seen = 0;
  #codePoint = 0;
  #lower = 0x80;
  #upper = 0xBF;
  // UTF-16LE state.
  #leadByte = -1;
  #leadSurrogate = -1;
  /** Whether the first code point of this stream has been written (or dropped as a BOM). */
  #started = false;

  /**
   * A decoder for one encoding, named by any of the labels the standard gives it.
   *
   * @param label An encoding label, such as `"utf-8"`, `"latin1"` or `"utf-16le"`.
   * @param options `fatal` and `ignoreBOM`, as the platform's.
   * @throws {RangeError} when the label names no encoding this decoder knows.
   */
  constructor(label: string = "utf-8", options: PureTextDecoderOptions = {}) {
    const encoding = LABELS.get(
      String(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "")
        .toLowerCase(),
    );
    if (encoding === undefined) {
      throw new RangeError(`The encoding label provided ('${label}') is invalid.`);
    }
    this.#encoding = encoding;
    this.#fatal = Boolean(options.fatal);
    this.#ignoreBOM = Boolean(options.ignoreBOM);
  }

  /** The encoding's name: `utf-8`, `windows-1252` or `utf-16le`. */
  get encoding(): string {
    return this.#encoding;
  }

  /** Whether invalid input throws. */
  get fatal(): boolean {
    return this.#fatal;
  }

  /** Whether a leading byte order mark is kept. */
  get ignoreBOM(): boolean {
    return this.#ignoreBOM;
  }

  /**
   * Decodes `input`, continuing any sequence an earlier `stream: true` call left unfinished.
   *
   * @param input An `ArrayBuffer` or a view of one (a `Uint8Array`, a `DataView`, …).
   * @param options `stream: true` when more input follows.
   * @returns The text.
   * @throws {TypeError} in `fatal` mode, when the input is not valid in the encoding.
   */
  decode(input?: ArrayBuffer | ArrayBufferView, options: PureDecodeOptions = {}): string {
    const bytes = toBytes(input);
    const stream = Boolean(options.stream);
    const out: number[] = [];
    const emit = (codePoint: number) => {
      if (!this.#started) {
        this.#started = true;
        if (codePoint === 0xFEFF && !this.#ignoreBOM && this.#encoding !== "windows-1252") return;
      }
      if (codePoint > 0xFFFF) {
        const v = codePoint - 0x10000;
        out.push(0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
      } else out.push(codePoint);
    };
    const error = () => {
      if (this.#fatal) {
        this.#reset();
        throw new TypeError("The encoded data is not valid.");
      }
      emit(REPLACEMENT);
    };
    if (this.#encoding === "utf-8") this.#utf8(bytes, emit, error);
    else if (this.#encoding === "utf-16le") this.#utf16le(bytes, emit, error);
    else {
      for (const byte of bytes) {
        emit(byte >= 0x80 && byte <= 0x9F ? WINDOWS_1252_HIGH[byte - 0x80] : byte);
      }
    }
    if (!stream) {
      const unfinished = this.#needed !== 0 || this.#leadByte !== -1 || this.#leadSurrogate !== -1;
      this.#reset();
      if (unfinished) {
        if (this.#fatal) throw new TypeError("The encoded data is not valid.");
        out.push(REPLACEMENT);
      }
      this.#started = false;
    }
    let text = "";
    for (let i = 0; i < out.length; i += 4096) {
      text += String.fromCharCode(...out.slice(i, i + 4096));
    }
    return text;
  }

  #reset(): void {
    this.#needed = 0;
    this.#seen = 0;
    this.#codePoint = 0;
    this.#lower = 0x80;
    this.#upper = 0xBF;
    this.#leadByte = -1;
    this.#leadSurrogate = -1;
  }

  /** The standard's UTF-8 decoder. */
  #utf8(bytes: Uint8Array, emit: (codePoint: number) => void, error: () => void): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (this.#needed === 0) {
        if (byte <= 0x7F) emit(byte);
        else if (byte >= 0xC2 && byte <= 0xDF) {
          this.#needed = 1;
          this.#codePoint = byte & 0x1F;
        } else if (byte >= 0xE0 && byte <= 0xEF) {
          if (byte === 0xE0) this.#lower = 0xA0;
          if (byte === 0xED) this.#upper = 0x9F;
          this.#needed = 2;
          this.#codePoint = byte & 0xF;
        } else if (byte >= 0xF0 && byte <= 0xF4) {
          if (byte === 0xF0) this.#lower = 0x90;
          if (byte === 0xF4) this.#upper = 0x8F;
          this.#needed = 3;
          this.#codePoint = byte & 0x7;
        } else error();
        continue;
      }
      if (byte < this.#lower || byte > this.#upper) {
        // The byte ends the broken sequence and is read again on its own.
        this.#reset();
        error();
        i--;
        continue;
      }
      this.#lower = 0x80;
      this.#upper = 0xBF;
      this.#codePoint = (this.#codePoint << 6) | (byte & 0x3F);
      this.#seen++;
      if (this.#seen === this.#needed) {
        const codePoint = this.#codePoint;
        this.#reset();
        emit(codePoint);
      }
    }
  }

  /** The standard's UTF-16LE decoder. */
  #utf16le(bytes: Uint8Array, emit: (codePoint: number) => void, error: () => void): void {
    for (const byte of bytes) {
      if (this.#leadByte === -1) {
        this.#leadByte = byte;
        continue;
      }
      const unit = this.#leadByte + (byte << 8);
      this.#leadByte = -1;
      if (this.#leadSurrogate !== -1) {
        const lead = this.#leadSurrogate;
        this.#leadSurrogate = -1;
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          emit(0x10000 + ((lead - 0xD800) << 10) + (unit - 0xDC00));
          continue;
        }
        // A lead surrogate with no trail: an error, and the unit is read on its own.
        error();
      }
      if (unit >= 0xD800 && unit <= 0xDBFF) this.#leadSurrogate = unit;
      else if (unit >= 0xDC00 && unit <= 0xDFFF) error();
      else emit(unit);
    }
  }
}

function toBytes(input: ArrayBuffer | ArrayBufferView | undefined): Uint8Array {
  if (input === undefined) return new Uint8Array(0);
  if (ArrayBuffer.isView(input)) {
    return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  }
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  throw new TypeError("The provided value is not of type '(ArrayBuffer or ArrayBufferView)'.");
}
