/**
 * Whether Sync answers this window: the event streams' state, window-wide.
 * A stream that closes or fails says at once that Sync is not answering;
 * what calls the API reads {@linkcode connected} and holds back until it
 * answers again. Once every stream is open again, {@linkcode reconnected}
 * says so for a moment.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** True while every event stream of the window is open (or opening for the first time). */
export const connected = signal(true);
/** True for a moment after the streams came back, so the window can say "Reconnected". */
export const reconnected = signal(false);

/** How long "Reconnected" is said, in ms. */
const RECONNECTED_MS = 5_000;

const lost = new Set<symbol>();
let quiet: ReturnType<typeof setTimeout> | undefined;

/** What an event stream tells the window of its state. */
export interface StreamConnection {
  /** The stream is open: Sync answers. */
  open(): void;
  /** The stream closed or failed: Sync does not answer now. */
  lost(): void;
  /** The stream is no longer watched (the page left it): it no longer counts. */
  closed(): void;
}

/** Registers an event stream whose state counts for {@linkcode connected}. */
export function trackStream(): StreamConnection {
  const id = Symbol("stream");
  // A stream opened while Sync does not answer (the page moved meanwhile) counts as lost
  // until it opens, so the window does not say it answers before it does.
  if (!connected.value) lost.add(id);
  return {
    open() {
      if (!lost.delete(id)) return;
      update(true);
    },
    lost() {
      if (lost.has(id)) return;
      lost.add(id);
      update(false);
    },
    closed() {
      // A stream left while lost: the window does not wait for it to come back.
      if (lost.delete(id)) update(false);
    },
  };
}

function update(cameBack: boolean): void {
  const now = lost.size === 0;
  clearTimeout(quiet);
  if (now && !connected.value && cameBack) {
    reconnected.value = true;
    quiet = setTimeout(() => reconnected.value = false, RECONNECTED_MS);
  } else if (!now) {
    reconnected.value = false;
  }
  connected.value = now;
}
