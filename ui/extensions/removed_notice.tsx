import { useEffect, useRef } from "preact/hooks";
import type { LastRemoval } from "../state/last_removal.ts";

/** Props of {@linkcode RemovedNotice}. */
export interface RemovedNoticeProps {
  /** The removal to tell. */
  removal: LastRemoval;
}

/**
 * What a removal did, told where the removed package's page was: its
 * `removed` handler's outcome, what went and what stayed. It takes the focus
 * the confirmation had, so a keyboard is not left nowhere.
 */
export function RemovedNotice(props: RemovedNoticeProps) {
  const { name, answer } = props.removal;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const handler = answer.removed;
  return (
    <div class="removed-notice" role="status" tabIndex={-1} ref={ref}>
      <h2>Removed {name} from this project</h2>
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
