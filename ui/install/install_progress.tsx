import { useEffect, useState } from "preact/hooks";
import type { InstallProgressEvent } from "../../runtime/web/api/events_types.ts";
import type { UploadProgress } from "./upload.ts";

/** What the install dialog is waiting for. */
export type InstallStep =
  | { step: "uploading"; name: string; progress: UploadProgress }
  | { step: "reading" }
  | { step: "installing" };

/** Props of {@linkcode InstallProgress}. */
export interface InstallProgressProps {
  /** What it waits for; null when it waits for nothing. */
  busy: InstallStep | null;
  /** The last stage the event stream told, while reading or installing; null before any. */
  stage: InstallProgressEvent["stage"] | null;
}

/** How long an action may take before a spinner says it is still going. */
const SPINNER_AFTER_MS = 300;

/**
 * What the install dialog is doing, in words, in a live region: the upload's
 * bytes with a progress bar, then the stage the server reports. The
 * region is always there (empty when idle) so each change is announced.
 */
export function InstallProgress(props: InstallProgressProps) {
  const { busy } = props;
  const [slow, setSlow] = useState(false);
  const waiting = busy !== null;
  useEffect(() => {
    setSlow(false);
    if (!waiting) return;
    const timer = setTimeout(() => setSlow(true), SPINNER_AFTER_MS);
    return () => clearTimeout(timer);
  }, [waiting]);
  return (
    <div class="install-progress" role="status">
      {busy && (
        <div class="install-progress-line">
          {slow && busy.step !== "uploading" && <span class="spinner" aria-hidden="true" />}
          <span>{words(busy, props.stage)}</span>
        </div>
      )}
      {busy?.step === "uploading" && (
        <progress
          class="install-progress-bar"
          max={Math.max(busy.progress.total, 1)}
          value={busy.progress.sent}
          aria-label={`Uploading ${busy.name}`}
        />
      )}
    </div>
  );
}

/** The words for what is going on. */
function words(busy: InstallStep, stage: InstallProgressEvent["stage"] | null): string {
  if (busy.step === "uploading") {
    const { sent, total } = busy.progress;
    const percent = total > 0 ? Math.floor((sent / total) * 100) : 0;
    return `Uploading ${busy.name}: ${percent}% (${formatBytes(sent)} of ${formatBytes(total)})`;
  }
  if (stage === "unpacking") return "Unpacking the archive…";
  if (stage === "checking") return "Checking the package…";
  if (stage === "installing") return "Installing…";
  return busy.step === "reading" ? "Reading the package and checking it…" : "Installing…";
}

/** A size in the units people read: bytes, KB or MB (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
