import { useState } from "preact/hooks";
import type { ExtensionPageResponse } from "../../runtime/web/api/types.ts";
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { WidePermissions } from "../install/wide_permissions.tsx";
import { approvedWords } from "./page_words.ts";

/** Props of {@linkcode UpdateNotice}. */
export interface UpdateNoticeProps {
  /** The package id. */
  id: string;
  /** The project folder. */
  project: string;
  /** The update that waits. */
  update: NonNullable<ExtensionPageResponse["update"]>;
  /** Called once it is approved, with what approving did, line by line, in the window's words. */
  onApproved: (lines: string[]) => void;
}

/**
 * An update that waits for a person: only what it asks for beyond what this
 * project approved (what reaches past what Sync guards set apart first, in the
 * install card's warning), which version serves meanwhile, and Approve.
 */
export function UpdateNotice(props: UpdateNoticeProps) {
  const { update } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const slow = useDelayed(busy, 300);
  const approve = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<InstallAnswer>(
        `/api/extensions/${encodeURIComponent(props.id)}/approve`,
        { project: props.project },
      );
      setBusy(false);
      props.onApproved(approvedWords(answer));
    } catch (thrown) {
      setBusy(false);
      setError(messageOf(thrown));
    }
  };
  const titleId = "update-title";
  // What reaches past what Sync guards stands apart, as on the install card, and Approve
  // then drops the look of the default action; nothing here ever takes the focus for it.
  const wide = update.widened.filter((line) => line.wide);
  const plain = update.widened.filter((line) => !line.wide);
  return (
    <section class="update-notice" aria-labelledby={titleId}>
      <h3 id={titleId}>Version {update.version} waits for your approval</h3>
      <p class="secondary">It asks for more than this project approved:</p>
      <WidePermissions permissions={wide} titleId="update-wide-title" />
      {plain.length > 0 && (
        <ul class="permission-list">
          {plain.map((line) => (
            <li key={line.permission}>
              <span class="primary">{line.text}</span>{" "}
              <span class="tertiary mono">{line.permission}</span>
            </li>
          ))}
        </ul>
      )}
      <p class="tertiary">
        {update.serves === null
          ? "Nothing serves this project until you approve."
          : `Version ${update.serves} keeps serving this project until you approve.`}
      </p>
      <div class="update-actions">
        <button
          type="button"
          class={wide.length > 0 ? "button danger" : "button primary"}
          onClick={() => !busy && approve()}
          aria-disabled={busy}
        >
          Approve
        </button>
        {slow && <span class="spinner" aria-hidden="true" />}
        <p role="status" class="action-status">
          {busy && slow ? `Approving ${update.version}…` : ""}
        </p>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
    </section>
  );
}
