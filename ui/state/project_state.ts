/**
 * What a project's window knows, kept live: the installed packages with
 * their lamps, read from the API and read again when the event stream says
 * something changed. The areas listen to the same stream for their own
 * facts (an open extension page takes its receipts from it).
 *
 * @module
 */
import { type Signal, signal } from "@preact/signals";
import type { ExtensionsResponse, ExtensionSummary } from "../../runtime/web/api/types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import { watchProject } from "../api/events.ts";

/** The facts that never change the list or a lamp, so the list is not read again for them. */
const QUIET_FACTS: ReadonlySet<StreamEvent["type"]> = new Set([
  "ready",
  "install-progress",
  "transcript",
  "activity",
  "opened",
  "unscheduled",
  "device",
]);

/** A project's live state, for as long as its window is open. */
export interface ProjectState {
  /** The project folder, as the address gave it. */
  readonly project: string;
  /** The folder as the server resolved it; null until the first answer. */
  readonly resolved: Signal<string | null>;
  /** Every installed package, in id order; null until the first answer. */
  readonly extensions: Signal<ExtensionSummary[] | null>;
  /** Why the list could not be read; null when it could. */
  readonly error: Signal<string | null>;
  /** Whether the live stream is open. */
  readonly live: Signal<boolean>;
  /** Reads the list again. */
  reload(): Promise<void>;
  /** Hears every fact of this project; returns a function that stops. */
  listen(listener: (event: StreamEvent) => void): () => void;
  /** Stops watching. */
  dispose(): void;
}

/**
 * Opens a project's live state: reads its list and watches its facts.
 *
 * @param project The project folder.
 */
export function openProjectState(project: string): ProjectState {
  const resolved = signal<string | null>(null);
  const extensions = signal<ExtensionSummary[] | null>(null);
  const error = signal<string | null>(null);
  const live = signal(false);
  const listeners = new Set<(event: StreamEvent) => void>();
  let reading: Promise<void> | null = null;
  let again = false;
  const reload = (): Promise<void> => {
    // One read at a time; facts that come during it ask for one more after it.
    if (reading) {
      again = true;
      return reading;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          const answer = await getJson<ExtensionsResponse>("/api/extensions", { project });
          resolved.value = answer.project;
          extensions.value = answer.extensions;
          error.value = null;
        } catch (thrown) {
          error.value = messageOf(thrown);
        }
      } while (again);
      reading = null;
    })();
    return reading;
  };
  const stop = watchProject(project, (event) => {
    // Progress, a transcript's chunks and an opening change no lamp; every other fact may.
    if (!QUIET_FACTS.has(event.type)) void reload();
    for (const listener of listeners) listener(event);
    // A linked package's files changed: whatever an area shows of it (an extension's page)
    // is read again, as after a lost stream. Only the area on screen listens.
    if (event.type === "package-changed") {
      for (const listener of listeners) listener({ type: "resync", dropped: 0 });
    }
  }, { onConnection: (open) => live.value = open });
  void reload();
  return {
    project,
    resolved,
    extensions,
    error,
    live,
    reload,
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      stop();
      listeners.clear();
    },
  };
}
