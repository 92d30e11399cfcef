/**
 * Archives uploaded to install from: the web page cannot name a file on the
 * person's disk, so it sends the archive's bytes, and the card and the
 * install then name it by an opaque id. Each is kept in the installation's
 * cache (`<home>/cache/uploads/<id>`) until an install takes it, or until it
 * has gone unused for `UPLOAD_LIMITS.keepUnusedMs`.
 *
 * @module
 */
import { join } from "node:path";
import { InvalidInputError, NotFoundError, PayloadTooLargeError } from "../errors.ts";
import { UPLOAD_LIMITS } from "../limits.ts";
import { storageFailure } from "../storage_failure.ts";

/** An id as {@linkcode UploadStore.save} makes them: 32 hex digits, nothing a path could hide in. */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/**
 * A size as the upload routes say it: the exact bytes, and in MiB for a
 * person, such as `33554432 bytes (32 MiB)`.
 *
 * @param bytes The size.
 */
export function describeUploadSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return mib < 0.1 ? `${bytes} bytes` : `${bytes} bytes (${Number(mib.toFixed(1))} MiB)`;
}

/** Options for {@linkcode UploadStore}. */
export interface UploadStoreOptions {
  /** The host's clock, in ms. */
  now: () => number;
  /** The largest upload, in bytes; `UPLOAD_LIMITS.maxUploadBytes` when absent. */
  maxBytes?: number;
  /** How long an unused upload is kept, in ms; `UPLOAD_LIMITS.keepUnusedMs` when absent. */
  keepUnusedMs?: number;
}

/** What {@linkcode UploadStore.save} kept. */
export interface SavedUpload {
  /** The opaque id to name it by: `source: { upload: id }`. */
  id: string;
  /** Its size, in bytes. */
  bytes: number;
}

/** The uploads of one installation. */
export class UploadStore {
  #dir: string;
  #now: () => number;
  #maxBytes: number;
  #keepUnusedMs: number;

  /**
   * The uploads kept under an installation's cache.
   *
   * @param home The installation folder.
   * @param options The clock, and the limits.
   */
  constructor(home: string, options: UploadStoreOptions) {
    this.#dir = join(home, "cache", "uploads");
    this.#now = options.now;
    this.#maxBytes = options.maxBytes ?? UPLOAD_LIMITS.maxUploadBytes;
    this.#keepUnusedMs = options.keepUnusedMs ?? UPLOAD_LIMITS.keepUnusedMs;
  }

  /** The largest upload taken, in bytes. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /**
   * Keeps a body as a new upload, counting its bytes as they arrive: past
   * the limit, what was written is removed and nothing is kept.
   *
   * @param body The request's body.
   * @throws {PayloadTooLargeError} past the limit.
   * @throws {InvalidInputError} for an empty body.
   * @throws {StorageError} when the disk is full or read-only; nothing is kept.
   */
  async save(body: ReadableStream<Uint8Array> | null): Promise<SavedUpload> {
    await this.sweep();
    const id = Array.from(
      crypto.getRandomValues(new Uint8Array(16)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    // Written beside its final name and renamed once whole, so an upload cut
    // off half-way is never taken for an archive.
    const part = join(this.#dir, `${id}.part`);
    const file = await this.#written(async () => {
      await Deno.mkdir(this.#dir, { recursive: true });
      return await Deno.open(part, { write: true, createNew: true });
    });
    let bytes = 0;
    try {
      if (body) {
        for await (const chunk of body) {
          bytes += chunk.byteLength;
          if (bytes > this.#maxBytes) {
            throw new PayloadTooLargeError(
              `The upload is larger than ${describeUploadSize(this.#maxBytes)}, the largest ` +
                `archive Sync installs; nothing was kept`,
            );
          }
          let written = 0;
          while (written < chunk.byteLength) written += await file.write(chunk.subarray(written));
        }
      }
      if (bytes === 0) {
        throw new InvalidInputError("The upload is empty: send the archive's bytes as the body");
      }
    } catch (error) {
      file.close();
      await Deno.remove(part).catch(() => {});
      throw storageFailure(error, this.#dir) ?? error;
    }
    file.close();
    await this.#written(() => Deno.rename(part, join(this.#dir, id))).catch(async (error) => {
      await Deno.remove(part).catch(() => {});
      throw error;
    });
    return { id, bytes };
  }

  /** Runs a write; a disk that refuses it is told as a refusal naming the uploads folder. */
  async #written<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      throw storageFailure(error, this.#dir) ?? error;
    }
  }

  /**
   * The file of an upload, to install or read a card from; using it keeps it
   * for another `keepUnusedMs`.
   *
   * @param id The id {@linkcode UploadStore.save} answered.
   * @throws {InvalidInputError} when `id` is not an upload id.
   * @throws {NotFoundError} when there is no such upload (any more).
   */
  async path(id: string): Promise<string> {
    if (!UPLOAD_ID.test(id)) {
      throw new InvalidInputError(
        `source.upload: ${JSON.stringify(id)} is not an upload id (32 hex digits, as ` +
          `POST /api/uploads answered)`,
      );
    }
    await this.sweep();
    const file = join(this.#dir, id);
    try {
      const now = new Date(this.#now());
      await Deno.utime(file, now, now);
    } catch {
      throw new NotFoundError(
        `There is no upload ${id}: an install took it, or it went unused for ` +
          `${Math.round(this.#keepUnusedMs / 60_000)} minutes and was removed; upload it again`,
      );
    }
    return file;
  }

  /**
   * Removes an upload (an install took it).
   *
   * @param id The upload's id.
   */
  async remove(id: string): Promise<void> {
    if (UPLOAD_ID.test(id)) await Deno.remove(join(this.#dir, id)).catch(() => {});
  }

  /**
   * Removes every upload (and upload cut off half-way) unused for longer than `keepUnusedMs`.
   *
   * @returns The ids removed.
   */
  async sweep(): Promise<string[]> {
    const removed: string[] = [];
    const before = this.#now() - this.#keepUnusedMs;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(this.#dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return removed;
      throw error;
    }
    for (const entry of entries) {
      const file = join(this.#dir, entry.name);
      const mtime = (await Deno.lstat(file).catch(() => null))?.mtime?.getTime();
      if (mtime === undefined || mtime >= before) continue;
      await Deno.remove(file, { recursive: true }).catch(() => {});
      removed.push(entry.name);
    }
    return removed;
  }
}
