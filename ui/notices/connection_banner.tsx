import { connected, reconnected } from "../state/connection.ts";

/**
 * Says, in a bar across the top of the window, that Sync does not answer: at once when the
 * event stream closes, while the window tries again by itself, and for a
 * moment "Reconnected" once it answers again. Its live region is always
 * there, so a screen reader hears each change.
 */
export function ConnectionBanner() {
  const down = !connected.value;
  const back = !down && reconnected.value;
  return (
    <div class="connection-region" role="status">
      {down && (
        <div class="connection-banner connection-lost">
          <strong>Sync is not answering.</strong>{" "}
          <span>
            It may have stopped; this window tries again by itself. What needs Sync waits until it
            answers. If it stopped, start it again with <code>deno task serve</code>.
          </span>
        </div>
      )}
      {back && (
        <div class="connection-banner connection-back">
          Reconnected: what is shown was read again.
        </div>
      )}
    </div>
  );
}
