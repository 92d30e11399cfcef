import { useEffect, useRef } from "preact/hooks";
import { Link } from "../common/link.tsx";
import { folderName } from "../common/folder_name.ts";
import { projectPath } from "../state/route.ts";
import { type LastOpening, lastOpening } from "../state/last_opening.ts";

/** Props of {@linkcode OpenedNotice}. */
export interface OpenedNoticeProps {
  /** The opening to tell. */
  opening: LastOpening;
}

/**
 * What opening the project did, told in its window: each `opened` handler
 * that ran and how it ended, with a link to its package's page (where its
 * receipt is), and the packages that could not serve. It takes the focus
 * the Open button had, which the start page took with it, and is said
 * once: it goes when the person moves on or dismisses it.
 */
export function OpenedNotice(props: OpenedNoticeProps) {
  const { project, answer } = props.opening;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    // Said once: moving on to a page (its receipt's, another area) leaves it behind.
    return () => {
      if (lastOpening.value === props.opening) lastOpening.value = null;
    };
  }, []);
  const nothing = answer.opened.length === 0 && answer.unavailable.length === 0;
  const page = (packageId: string) => projectPath(project, "extensions", packageId);
  return (
    <div class="opened-notice" role="status" tabIndex={-1} ref={ref}>
      <h2>Opened {folderName(answer.project.path)}</h2>
      {nothing
        ? <p class="secondary">No extension has anything to do when it opens.</p>
        : (
          <ul class="outcomes">
            {answer.opened.map((run) => (
              <li key={run.packageId} class={run.outcome === "ok" ? "ok" : "failed"}>
                <span class="mono">{run.handler}</span>{" "}
                {run.outcome === "ok" ? "ran: ok" : `failed: ${run.error?.message}`} —{" "}
                <Link href={page(run.packageId)}>receipt on {run.packageId}'s page</Link>
              </li>
            ))}
            {answer.unavailable.map((entry) => (
              <li key={entry.packageId} class="failed">
                <Link href={page(entry.packageId)}>{entry.packageId}</Link> did not run:{" "}
                {entry.message}
              </li>
            ))}
          </ul>
        )}
      <button type="button" class="button" onClick={() => lastOpening.value = null}>
        Dismiss
      </button>
    </div>
  );
}
