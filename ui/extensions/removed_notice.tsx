import { useEffect } from "preact/hooks";
import { type LastRemoval, lastRemoval } from "../state/last_removal.ts";
import { usePassing } from "../notices/use_passing.ts";

/** Props of {@linkcode RemovedNotice}. */
export interface RemovedNoticeProps {
  /** The removal to tell. */
  removal: LastRemoval;
}

/**
 * What a removal did, told where the removed package's page was: its
 * `removed` handler's outcome, what went and what stayed. It takes the focus
 * the confirmation had, so a keyboard is not left nowhere. It goes when the
 * person moves to another page, dismisses it, or leaves it alone a while.
 */
export function RemovedNotice(props: RemovedNoticeProps) {
  const { name, answer } = props.removal;
  const ref = usePassing<HTMLDivElement>(() => lastRemoval.value = null);
  useEffect(() => ref.current?.focus(), []);
  const handler = answer.removed;
  return (
    <div class="removed-notice" role="status" tabIndex={-1} ref={ref}>
      <div class="removed-notice-head">
        <h2>Removed {name} from this project</h2>
        <button type="button" class="button" onClick={() => lastRemoval.value = null}>
          Dismiss
        </button>
      </div>
      {handler && (
        <p class={handler.outcome === "ok" ? "secondary" : "error"}>
          {handler.outcome === "ok"
            ? `Its removed handler ${handler.handler} ran: ok.`
            : `Its removed handler ${handler.handler} failed: ${handler.error?.message}. It was removed anyway.`}
        </p>
      )}
      {answer.notice && <p class="secondary">{answer.notice}</p>}
      <h3 class="removal-title">What went</h3>
      <ul class="removal-list">{answer.went.map((line) => <li key={line}>{line}</li>)}</ul>
      <h3 class="removal-title">What stayed</h3>
      <ul class="removal-list">{answer.stays.map((line) => <li key={line}>{line}</li>)}</ul>
    </div>
  );
}
