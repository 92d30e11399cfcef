import type { ChatRow as Row } from "../../runtime/web/api/chat_types.ts";
import { ChatRow } from "./chat_row.tsx";

/** Props of {@linkcode ChatGroup}. */
export interface ChatGroupProps {
  /** The group's heading: Conversations, or the ordering extension's name. */
  title: string;
  /** Names the heading for the list that follows it. */
  id: string;
  /** Its sessions, newest first. */
  rows: Row[];
  /** The project folder, as the address gives it. */
  project: string;
  /** The key of the session shown in the detail column. */
  selected: string | null;
}

/** A group of Chat's list under its heading. */
export function ChatGroup(props: ChatGroupProps) {
  return (
    <section class="chat-group" aria-labelledby={props.id}>
      <h2 id={props.id} class="chat-group-title">{props.title}</h2>
      <ul class="chat-rows" aria-labelledby={props.id}>
        {props.rows.map((row) => (
          <ChatRow
            key={row.key}
            project={props.project}
            row={row}
            selected={row.key === props.selected}
          />
        ))}
      </ul>
    </section>
  );
}
