import { useState } from "preact/hooks";
import type { Removal, RemoveResponse } from "../../runtime/web/api/types.ts";
import { ApiError, messageOf, postJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import { useDelayed } from "../common/use_delayed.ts";

/** Props of {@linkcode RemoveDialog}. */
export interface RemoveDialogProps {
  /** The package id. */
  id: string;
  /** Its name. */
  name: string;
  /** The project folder. */
  project: string;
  /** What removing it keeps and takes. */
  removal: Removal;
  /** Cancel or Escape. */
  onClose: () => void;
  /** Told what the removal did, once done. */
  onRemoved: (answer: RemoveResponse) => void;
}

/**
 * The confirmation of a removal: what stays and what goes, Cancel and
 * Remove. When the package's `removed` handler fails, nothing is removed; the
 * dialog says why and offers to remove it anyway.
 */
export function RemoveDialog(props: RemoveDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; handlerFailed: boolean } | null>(null);
  const slow = useDelayed(busy, 300);
  const remove = async (force: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await postJson<RemoveResponse>(
        `/api/extensions/${encodeURIComponent(props.id)}/remove`,
        { project: props.project, ...(force ? { force: true } : {}) },
      );
      props.onRemoved(answer);
    } catch (thrown) {
      setBusy(false);
      setError({
        text: messageOf(thrown),
        handlerFailed: thrown instanceof ApiError && thrown.status === 422,
      });
    }
  };
  return (
    <Dialog title={`Remove ${props.name} from this project?`} onClose={props.onClose}>
      <div class="removal">
        <h3 class="removal-title">What stays</h3>
        <ul class="removal-list">
          {props.removal.stays.map((line) => <li key={line}>{line}</li>)}
        </ul>
        <h3 class="removal-title">What goes</h3>
        <ul class="removal-list">
          {props.removal.goes.map((line) => <li key={line}>{line}</li>)}
        </ul>
      </div>
      {error && (
        <p class="error" role="alert">
          {error.text}
        </p>
      )}
      <p role="status" class="tertiary action-status">{slow ? `Removing ${props.name}…` : ""}</p>
      <div class="dialog-actions">
        <button type="button" class="button" onClick={props.onClose} disabled={busy}>
          Cancel
        </button>
        {/* One button that keeps the focus: while it works it is marked busy, not disabled. */}
        <button
          type="button"
          class="button danger primary"
          onClick={() => !busy && remove(error?.handlerFailed === true)}
          aria-disabled={busy}
          autofocus
        >
          {error?.handlerFailed ? "Remove anyway" : "Remove"}
        </button>
      </div>
    </Dialog>
  );
}
