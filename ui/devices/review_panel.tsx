import { useEffect, useRef } from "preact/hooks";
import type { DeviceView, RunResponse } from "../../runtime/web/api/devices_types.ts";
import { connected } from "../state/connection.ts";
import type { DevicesState } from "./devices_state.ts";
import { AttemptRow } from "./attempt_row.tsx";
import { useDeviceAction } from "./use_device_action.ts";

/** Props of {@linkcode ReviewPanel}. */
export interface ReviewPanelProps {
  /** The project folder. */
  project: string;
  /** The device, red with a run to review. */
  device: DeviceView;
  /** Where an action's answer goes. */
  devices: DevicesState;
  /** Closes it. */
  onClose: () => void;
}

/**
 * The run a person must review: the newest attempt that failed or whose
 * outcome is unknown, with what went wrong and its receipts; then Run again
 * (marks it reviewed and, on demand, reads at once) or Mark reviewed. A run
 * whose outcome is unknown is never sent again by itself.
 */
export function ReviewPanel(props: ReviewPanelProps) {
  const { device } = props;
  const action = useDeviceAction(props.project, device.id, props.devices);
  const heading = useRef<HTMLHeadingElement>(null);
  // The focus goes to the panel, and back to what opened it (the notice's button) when it closes.
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    heading.current?.focus();
    return () => {
      if (before && before.isConnected) before.focus();
    };
  }, []);
  const attempts = device.tasks.flatMap((task) => task.attempts)
    .filter((attempt) => attempt.outcome === "failed" || attempt.outcome === "unknown")
    .sort((a, b) => b.startedAt - a.startedAt);
  const attempt = attempts[0] ?? null;
  const unknown = attempt?.outcome === "unknown";
  const held = action.busy || !connected.value;
  const review = async (again: boolean) => {
    if (held) return;
    const reviewed = await action.act("review", {}, {
      done: () => `Marked reviewed: ${device.name} runs again${again ? "" : " when it is due"}.`,
      failed: "Could not mark it reviewed",
    });
    if (!reviewed || !again || !device.modes.includes("on-demand")) return;
    await action.act<RunResponse>("run", { task: attempt?.task ?? "sync" }, {
      done: (answer) =>
        answer.attempt.outcome === "ok"
          ? "Ran again: it ended well."
          : { text: `Ran again: ${answer.attempt.error ?? answer.attempt.outcome}`, error: true },
      failed: "Marked reviewed, but could not run it again",
    });
  };
  return (
    <section class="update-notice device-review" aria-labelledby="review-title">
      <h3 id="review-title" class="section-title" tabIndex={-1} ref={heading}>
        {unknown ? "A run whose outcome is unknown" : "The run that failed"}
      </h3>
      {attempt
        ? (
          <ol class="plain-list receipt-list" aria-label="The run to review">
            <AttemptRow project={props.project} id={device.id} attempt={attempt} />
          </ol>
        )
        : <p class="tertiary">Its attempt is no longer kept.</p>}
      <p class="secondary">
        {unknown
          ? "It may have changed something at the source before its answer was lost. Check the source; Sync does not send it again by itself."
          : "Read what went wrong, mend it if you can, then let it run again."}
      </p>
      <div class="device-actions">
        <button
          type="button"
          class="button primary"
          aria-disabled={held}
          onClick={() => void review(true)}
        >
          Run again
        </button>
        <button
          type="button"
          class="button"
          aria-disabled={held}
          onClick={() => void review(false)}
        >
          Mark reviewed
        </button>
        <button type="button" class="button" onClick={props.onClose}>Close</button>
      </div>
      <p
        role="status"
        class={action.said?.error ? "error action-status" : "tertiary action-status"}
      >
        {action.slow ? "Working…" : action.said?.text ?? ""}
      </p>
    </section>
  );
}
