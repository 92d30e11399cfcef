import { useState } from "preact/hooks";
import type { Removal, RemoveResponse } from "../../runtime/web/api/types.ts";
import { connected } from "../state/connection.ts";
import { lastRemoval } from "../state/last_removal.ts";
import { navigate, projectPath } from "../state/route.ts";
import { RemoveDialog } from "./remove_dialog.tsx";

/** Props of {@linkcode RemoveSection}. */
export interface RemoveSectionProps {
  /** The package id. */
  id: string;
  /** Its name, as the page shows it. */
  name: string;
  /** What removing it keeps and takes, as the API answered it. */
  removal: Removal;
  /** The project folder, as the address gives it. */
  project: string;
}

/** The end of the page: Remove…, which asks first and then goes back to the Extensions list. */
export function RemoveSection(props: RemoveSectionProps) {
  const [asking, setAsking] = useState(false);
  const removed = (answer: RemoveResponse) => {
    lastRemoval.value = { project: props.project, name: props.name, answer };
    navigate(projectPath(props.project));
  };
  return (
    <section class="page-section remove-section" aria-labelledby="remove-title">
      <h3 id="remove-title" class="section-title">Remove from this project</h3>
      <div class="remove-row">
        <p class="secondary">
          It stops running here. Its records and receipts stay.
        </p>
        <button
          type="button"
          class="button danger"
          aria-disabled={connected.value ? undefined : "true"}
          onClick={() => connected.value && setAsking(true)}
        >
          Remove…
        </button>
      </div>
      {asking && (
        <RemoveDialog
          id={props.id}
          name={props.name}
          project={props.project}
          removal={props.removal}
          onClose={() => setAsking(false)}
          onRemoved={removed}
        />
      )}
    </section>
  );
}
