/**
 * The cursors of record listings. A cursor says where the next page starts —
 * the key of the last record the page before held — and is handed to whoever
 * listed, who may be a package that must not learn or steer more than the
 * listing showed it. So a cursor is sealed (AES-GCM) under a secret the
 * reader never sees, with the reader and the listing's prefix bound in as
 * associated data: it cannot be read back into a key, made up, changed, or
 * carried to another listing or another package; each of these is refused.
 *
 * The host seals with the installation's secret, so a cursor a handler keeps
 * stays good in later calls and other processes; listings that never outlive
 * their process (a person's `sync records`, the stand-in host of
 * `deno task check`) use a secret of the process.
 *
 * @module
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import { InvalidInputError } from "../errors.ts";
import { RECORD_LIMITS } from "../limits.ts";

/** Whose listing, over which records: what a cursor is good for. */
export interface CursorScope {
  /** Who listed: a package, or a person. */
  reader: string;
  /** The listing's key prefix, with `kind` already folded in. */
  prefix: string;
}

/** Bytes of a cursor secret. */
export const CURSOR_SECRET_BYTES = 32;

const IV_BYTES = 12;
const TAG_BYTES = 16;
// The longest cursor ever issued seals the longest key (every character four
// bytes of UTF-8); anything longer was not issued and is refused unread.
const MAX_CURSOR_CHARS = Math.ceil((IV_BYTES + RECORD_LIMITS.maxKeyChars * 4 + TAG_BYTES) / 3) *
  4;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * A fresh secret to seal cursors with.
 *
 * @returns {@linkcode CURSOR_SECRET_BYTES} random bytes.
 */
export function newCursorSecret(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(CURSOR_SECRET_BYTES));
}

/** Issues and opens the cursors of record listings under one secret. */
export class RecordCursors {
  #secret: () => Promise<Uint8Array>;
  #key: Promise<Uint8Array> | null = null;

  /**
   * Cursors sealed under the secret `secret` answers. It is asked the first
   * time a cursor is issued or opened, and once more after a failure.
   *
   * @param secret Answers the secret: {@linkcode CURSOR_SECRET_BYTES} bytes.
   */
  constructor(secret: () => Promise<Uint8Array>) {
    this.#secret = secret;
  }

  /**
   * The cursor of a page that ended at `lastKey`.
   *
   * @param lastKey The key of the page's last record.
   * @param scope Who listed, and the listing's prefix.
   * @returns An opaque string, good only for the same reader and prefix.
   */
  async issue(lastKey: string, scope: CursorScope): Promise<string> {
    const key = await this.#cryptoKey();
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    // Sealed in this thread (node:crypto) rather than by WebCrypto, whose
    // round trip to another thread costs a listing several times the sealing:
    // the same AES-GCM, the same bytes (ciphertext, then the tag).
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(boundTo(scope));
    const head = cipher.update(encoder.encode(lastKey));
    const tail = cipher.final();
    const tag = cipher.getAuthTag();
    const bytes = new Uint8Array(IV_BYTES + head.byteLength + tail.byteLength + TAG_BYTES);
    bytes.set(iv);
    bytes.set(head, IV_BYTES);
    bytes.set(tail, IV_BYTES + head.byteLength);
    bytes.set(tag, bytes.byteLength - TAG_BYTES);
    return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /**
   * The key a cursor continues after.
   *
   * @param cursor What the reader passed as `cursor`.
   * @param scope Who lists now, and the listing's prefix.
   * @returns The key of the last record of the page that issued it.
   * @throws {InvalidInputError} naming the cursor, when it was not issued by
   *   a listing of this reader over this prefix, or was changed since.
   */
  async open(cursor: unknown, scope: CursorScope): Promise<string> {
    const refuse = () => cursorRefusal(cursor);
    if (typeof cursor !== "string" || cursor === "" || cursor.length > MAX_CURSOR_CHARS) {
      throw refuse();
    }
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = Uint8Array.fromBase64(cursor, { alphabet: "base64url" });
    } catch {
      throw refuse();
    }
    if (bytes.byteLength < IV_BYTES + TAG_BYTES) throw refuse();
    const key = await this.#cryptoKey();
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(boundTo(scope));
      decipher.setAuthTag(bytes.subarray(bytes.byteLength - TAG_BYTES));
      const head = decipher.update(bytes.subarray(IV_BYTES, bytes.byteLength - TAG_BYTES));
      // Throws unless the tag proves the cursor sealed under this secret for this scope.
      const tail = decipher.final();
      const opened = new Uint8Array(head.byteLength + tail.byteLength);
      opened.set(head);
      opened.set(tail, head.byteLength);
      return decoder.decode(opened);
    } catch {
      throw refuse();
    }
  }

  #cryptoKey(): Promise<Uint8Array> {
    if (this.#key === null) {
      const key = this.#secret().then((secret) => {
        if (secret.byteLength !== CURSOR_SECRET_BYTES) {
          throw new Error(
            `A cursor secret is ${CURSOR_SECRET_BYTES} bytes, not ${secret.byteLength}`,
          );
        }
        return new Uint8Array(secret);
      });
      this.#key = key;
      // A secret that could not be read is asked for again next time.
      key.catch(() => {
        if (this.#key === key) this.#key = null;
      });
    }
    return this.#key;
  }
}

let processCursors: RecordCursors | null = null;

/**
 * Cursors under a secret of this process, for listings whose cursors never
 * outlive it.
 */
export function processRecordCursors(): RecordCursors {
  processCursors ??= new RecordCursors(() => Promise.resolve(newCursorSecret()));
  return processCursors;
}

/**
 * The refusal of a cursor that was not issued for the listing it was passed to.
 *
 * @param cursor What the reader passed as `cursor`.
 */
export function cursorRefusal(cursor: unknown): InvalidInputError {
  return new InvalidInputError(
    `A list query's "cursor" must be the one the page before returned, unchanged, ` +
      `for the same kind and prefix; ${show(cursor)} was not issued for this query.`,
  );
}

function boundTo(scope: CursorScope): Uint8Array<ArrayBuffer> {
  return encoder.encode(JSON.stringify(["record cursor", scope.reader, scope.prefix]));
}

function show(cursor: unknown): string {
  if (typeof cursor !== "string") return typeof cursor;
  return JSON.stringify(cursor.length > 40 ? `${cursor.slice(0, 40)}…` : cursor);
}
