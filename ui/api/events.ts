/**
 * The live facts from the server's event streams: a project's, from
 * `GET /api/events`, and the start page's, from `GET /api/projects/events`.
 * Each event's name is its `type`, its data the event as JSON. A stream
 * that closes or fails is told at once (`ui/state/connection.ts`, and
 * `onConnection`) and opened again, waiting longer after each failure;
 * after a reconnect, and after a `resync` (the server dropped facts this
 * page was too slow to take), what is shown must be read again, which the
 * listener is told as a `resync`.
 *
 * @module
 */
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { trackStream } from "../state/connection.ts";
import { apiUrl } from "./client.ts";

/** Every event name the streams send. */
const EVENT_TYPES: readonly StreamEvent["type"][] = [
  "ready",
  "resync",
  "handler-started",
  "handler-ended",
  "receipt",
  "switch",
  "installed",
  "removed",
  "package-changed",
  "opened",
  "unscheduled",
  "install-progress",
  "session",
  "transcript",
  "activity",
  "device",
];

/** Options for {@linkcode watchProject} and {@linkcode watchProjects}. */
export interface WatchProjectOptions {
  /** Told true when the stream is open, false when it is lost (it is tried again). */
  onConnection?: (open: boolean) => void;
}

/**
 * Watches a project's facts until the returned function is called.
 *
 * @param project The project folder.
 * @param listener Told every event; a reconnect is told as `{ type: "resync", dropped: 0 }`.
 * @param options What hears the connection's state.
 * @returns A function that stops watching.
 */
export function watchProject(
  project: string,
  listener: (event: StreamEvent) => void,
  options: WatchProjectOptions = {},
): () => void {
  return watchStream(apiUrl("/api/events", { project }), listener, options);
}

/**
 * Watches the facts that change the start page's lists — a project opened,
 * a package installed or removed anywhere, a project taken off the clock —
 * until the returned function is called.
 *
 * @param listener Told every event; a reconnect is told as `{ type: "resync", dropped: 0 }`.
 * @param options What hears the connection's state.
 * @returns A function that stops watching.
 */
export function watchProjects(
  listener: (event: StreamEvent) => void,
  options: WatchProjectOptions = {},
): () => void {
  return watchStream("/api/projects/events", listener, options);
}

/** The first wait before opening a lost stream again, in ms; each failure doubles it. */
const RETRY_FIRST_MS = 500;
/** The longest wait between two tries, in ms. */
const RETRY_MOST_MS = 4_000;

function watchStream(
  url: string,
  listener: (event: StreamEvent) => void,
  options: WatchProjectOptions,
): () => void {
  const connection = trackStream();
  let source: EventSource | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let wait = RETRY_FIRST_MS;
  let lost = false;
  let stopped = false;
  const open = () => {
    const current = new EventSource(url);
    source = current;
    for (const type of EVENT_TYPES) {
      current.addEventListener(type, (message) => {
        let event: StreamEvent;
        try {
          event = JSON.parse((message as MessageEvent<string>).data);
        } catch {
          return;
        }
        if (event.type === "ready") {
          wait = RETRY_FIRST_MS;
          connection.open();
          options.onConnection?.(true);
          // Facts may have been missed while the stream was down.
          if (lost) listener({ type: "resync", dropped: 0 });
          lost = false;
        }
        listener(event);
      });
    }
    current.addEventListener("error", () => {
      // The stream closed or could not open: said at once, then tried again, later each
      // time. The browser's own retry is not waited for: it gives up for good on an
      // answer that is not a stream (a serve starting, or gone behind a proxy).
      current.close();
      if (stopped || source !== current) return;
      lost = true;
      connection.lost();
      options.onConnection?.(false);
      clearTimeout(retry);
      retry = setTimeout(open, wait);
      wait = Math.min(wait * 2, RETRY_MOST_MS);
    });
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(retry);
    source?.close();
    connection.closed();
  };
}
