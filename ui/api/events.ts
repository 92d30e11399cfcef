/**
 * The live facts from the server's event streams: a project's, from
 * `GET /api/events`, and the start page's, from `GET /api/projects/events`.
 * Each event's name is its `type`, its data the event as JSON. The
 * browser's EventSource reconnects by itself; after a reconnect, and after a
 * `resync` (the server dropped facts this page was too slow to take), what
 * is shown must be read again, which the listener is told as a `resync`.
 *
 * @module
 */
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
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
];

/** Options for {@linkcode watchProject} and {@linkcode watchProjects}. */
export interface WatchProjectOptions {
  /** Told true when the stream is open, false when it is lost (the browser retries). */
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

function watchStream(
  url: string,
  listener: (event: StreamEvent) => void,
  options: WatchProjectOptions,
): () => void {
  const source = new EventSource(url);
  let lost = false;
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (message) => {
      let event: StreamEvent;
      try {
        event = JSON.parse((message as MessageEvent<string>).data);
      } catch {
        return;
      }
      if (event.type === "ready") {
        options.onConnection?.(true);
        // Facts may have been missed while the stream was down.
        if (lost) listener({ type: "resync", dropped: 0 });
        lost = false;
      }
      listener(event);
    });
  }
  source.addEventListener("error", () => {
    lost = true;
    options.onConnection?.(false);
  });
  return () => source.close();
}
