import { useEffect, useState } from "preact/hooks";
import type { ChatRow as Row } from "../../runtime/web/api/chat_types.ts";
import { ChatGroup } from "./chat_group.tsx";

/** Props of {@linkcode ArchivedGroup}. */
export interface ArchivedGroupProps {
  /** The archived sessions, newest first. */
  rows: Row[];
  /** The project folder, as the address gives it. */
  project: string;
  /** The key of the session shown in the detail column. */
  selected: string | null;
}

/**
 * The archived conversations, at the end of Chat's list: folded under a
 * button that says how many there are, opened when one of them is shown.
 */
export function ArchivedGroup(props: ArchivedGroupProps) {
  const holdsSelected = props.rows.some((row) => row.key === props.selected);
  const [open, setOpen] = useState(holdsSelected);
  // One archived while it is shown, or chosen by its address, opens the group where it went.
  useEffect(() => {
    if (holdsSelected) setOpen(true);
  }, [holdsSelected]);
  if (props.rows.length === 0) return null;
  const shown = open;
  return (
    <div class="chat-archived">
      <button
        type="button"
        class="button quiet chat-archived-toggle"
        aria-expanded={shown}
        aria-controls="chat-group-archived-rows"
        onClick={() => setOpen(!shown)}
      >
        {shown ? "Hide archived" : `Show archived (${props.rows.length})`}
      </button>
      <div id="chat-group-archived-rows" hidden={!shown}>
        {shown && (
          <ChatGroup
            id="chat-group-archived"
            title="Archived"
            rows={props.rows}
            project={props.project}
            selected={props.selected}
          />
        )}
      </div>
    </div>
  );
}
