import type { TaskAttempt } from "../../runtime/web/api/devices_types.ts";
import { Link } from "../common/link.tsx";
import { RelativeTime } from "../common/relative_time.tsx";
import { projectPath } from "../state/route.ts";
import { attemptOutcomeWords, coverageWords, triggerWords } from "./device_words.ts";

/** Props of {@linkcode AttemptRow}. */
export interface AttemptRowProps {
  /** The project folder. */
  project: string;
  /** The device's package id, whose page holds the receipts. */
  id: string;
  /** The attempt. */
  attempt: TaskAttempt;
}

/**
 * One attempt of a task: how it ended, why it ran, which try, when
 * (relative, the time itself on hover and focus), what it read, what went
 * wrong, and its receipts, linked to the package's receipts.
 */
export function AttemptRow(props: AttemptRowProps) {
  const { attempt } = props;
  // The receipts' marks: green done, red failed or unknown, hollow called off, grey running.
  const outcome = attempt.outcome;
  const mark = outcome === "ok"
    ? "ok"
    : outcome === "cancelled" || outcome === "fenced"
    ? "cancelled"
    : outcome === undefined
    ? "running"
    : "failed";
  return (
    <li class={`receipt receipt-${mark} device-attempt`} data-attempt-id={attempt.id}>
      <span class="receipt-outcome">
        <span class="outcome-mark" aria-hidden="true" />
        {attemptOutcomeWords(attempt.outcome)}
      </span>
      <span class="secondary receipt-occasion">
        {triggerWords(attempt.trigger)}
        {attempt.try > 1 ? `, try ${attempt.try}` : ""}
      </span>
      <span class="tertiary receipt-when">
        <RelativeTime iso={new Date(attempt.startedAt).toISOString()} />
      </span>
      {attempt.coverage && (
        <p class="tertiary device-attempt-coverage">{coverageWords(attempt.coverage)}</p>
      )}
      {attempt.error && <p class="receipt-error">{attempt.error}</p>}
      {attempt.receipts.length > 0 && (
        <p class="tertiary device-attempt-receipts">
          {attempt.receipts.length === 1 ? "Receipt: " : "Receipts: "}
          {attempt.receipts.map((receipt, index) => (
            <span key={receipt}>
              {index > 0 && ", "}
              <Link
                href={`${projectPath(props.project, "extensions", props.id)}#receipt-${
                  encodeURIComponent(receipt)
                }`}
                label={`Receipt of step ${index + 1}`}
              >
                step {index + 1}
              </Link>
            </span>
          ))}
        </p>
      )}
    </li>
  );
}
