/**
 * Sends an archive's bytes to `POST /api/uploads` with XMLHttpRequest, the
 * one browser API that tells how many bytes have gone out, so the page can
 * show the upload's progress.
 *
 * @module
 */
import type { ErrorResponse } from "../../runtime/web/api/types.ts";
import type { UploadAnswer } from "../../runtime/web/api/events_types.ts";
import { ApiError } from "../api/client.ts";

/** How far an upload has got. */
export interface UploadProgress {
  /** Bytes sent. */
  sent: number;
  /** Bytes to send. */
  total: number;
}

/** Options for {@linkcode uploadArchive}. */
export interface UploadOptions {
  /** Told as the bytes go out. */
  onProgress?: (progress: UploadProgress) => void;
  /** Aborts the upload; the promise then rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/**
 * Uploads a file as the raw bytes of an archive to install from.
 *
 * @param file The archive the person chose.
 * @param options What hears progress, and what aborts.
 * @returns The upload's id and size, to install from as `{ upload: id }`.
 * @throws {ApiError} with the server's words when it refuses (413: larger than Sync takes).
 */
export function uploadArchive(file: Blob, options: UploadOptions = {}): Promise<UploadAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/uploads");
    xhr.withCredentials = true;
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (event) => {
      options.onProgress?.({
        sent: event.loaded,
        total: event.lengthComputable ? event.total : file.size,
      });
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        // Not JSON: the status says enough below.
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as UploadAnswer);
        return;
      }
      const said = (body as ErrorResponse | null)?.error;
      reject(
        new ApiError(
          typeof said === "string" ? said : `Uploading failed: HTTP ${xhr.status}`,
          xhr.status,
        ),
      );
    };
    xhr.onerror = () => {
      // A refusal sent before the body was read can reach the page as a cut connection.
      reject(
        new ApiError(
          "The upload was cut off before Sync answered: Sync stopped, or refused an archive " +
            "too large to install.",
          0,
        ),
      );
    };
    xhr.onabort = () => reject(new DOMException("The upload was stopped", "AbortError"));
    options.signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}
