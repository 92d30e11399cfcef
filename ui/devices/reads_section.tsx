import type { DeviceView, RunResponse } from "../../runtime/web/api/devices_types.ts";
import { RelativeTime } from "../common/relative_time.tsx";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { attemptOutcomeWords, coverageWords, modeLines } from "./device_words.ts";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode ReadsSection}. */
export interface ReadsSectionProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
  /** Where an action's answer goes. */
  devices: DevicesState;
}

/**
 * How the device reads, in words ("Reads every 15 minutes", "Watches the
 * folder for changes"), Read now when it reads on demand, a website's link,
 * and what its last read covered — a count it could not know said as unknown.
 */
export function ReadsSection(props: ReadsSectionProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  if (device.modes.includes("website")) {
    return (
      <section class="page-section" aria-labelledby="reads-title">
        <h3 id="reads-title" class="section-title">How it works</h3>
        <p class="secondary">
          A website: Sync reads nothing of it by itself.{" "}
          {/* Only an https address is a link: the manifest's words are never a script's. */}
          {device.url?.startsWith("https://") && (
            <a href={device.url} target="_blank" rel="noopener noreferrer">
              Open {device.url}
            </a>
          )}
        </p>
      </section>
    );
  }
  const onDemand = device.modes.includes("on-demand");
  const why = device.account === null
    ? `Connect ${device.accepts?.kind === "folder" ? "a folder" : "an account"} first.`
    : device.state === "paused"
    ? "It is paused: resume it first."
    : device.state === "processing"
    ? "It is reading now."
    : device.tasks.some((task) => task.parkedUntilReview)
    ? "A run's outcome is unknown: review it first."
    : null;
  const held = action.busy || !connected.value || why !== null;
  const read = () =>
    void action.act<RunResponse>("run", {}, {
      done: (answer) => {
        const { attempt } = answer;
        if (attempt.outcome === "ok") {
          return attempt.coverage
            ? `Finished: ${lowerFirst(coverageWords(attempt.coverage))}.`
            : "Finished: it did not say how much it read.";
        }
        // A run that ended without reading is said as an error, beside the button.
        return {
          text: `${attemptOutcomeWords(attempt.outcome)}${
            attempt.error ? `: ${attempt.error}` : ""
          }`,
          error: true,
        };
      },
      failed: "Could not read now",
    });
  const last = device.lastRead;
  return (
    <section class="page-section" aria-labelledby="reads-title">
      <h3 id="reads-title" class="section-title">How it reads</h3>
      <ul class="plain-list device-modes">
        {modeLines(device).map((line) => <li key={line} class="secondary">{line}</li>)}
      </ul>
      {onDemand && (
        <div class="device-actions">
          <button
            type="button"
            class="button primary"
            aria-disabled={held}
            aria-describedby={why ? "read-now-why" : undefined}
            onClick={() => !held && read()}
          >
            Read now
          </button>
          {why && <span id="read-now-why" class="tertiary">{why}</span>}
        </div>
      )}
      <p
        role="status"
        class={action.said?.error ? "error action-status" : "tertiary action-status"}
      >
        {action.slow ? "Reading…" : action.said?.text ?? ""}
      </p>
      <div class="device-last-read">
        <h4 class="device-subtitle">Last read</h4>
        {last
          ? (
            <p class="secondary device-coverage">
              {coverageWords(last.coverage)}
              <span class="tertiary">
                {" · "}
                <RelativeTime iso={new Date(last.at).toISOString()} />
              </span>
            </p>
          )
          : <p class="tertiary">No read has ended yet.</p>}
        {last?.coverage.reasons && last.coverage.reasons.length > 0 && (
          <ul class="plain-list device-reasons" aria-label="What could not be read">
            {last.coverage.reasons.map((reason, index) => (
              <li key={index} class="tertiary">
                <span class="mono">{reason.item}</span>: {reason.reason}
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

/** "Read 3 items" → "read 3 items", to follow "Read:". */
function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
