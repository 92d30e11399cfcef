import type { ChatRow as Row } from "../../runtime/web/api/chat_types.ts";
import { Link } from "../common/link.tsx";
import { RelativeTime } from "../common/relative_time.tsx";
import { projectPath } from "../state/route.ts";
import { shownState } from "./chat_words.ts";

/** Props of {@linkcode ChatRow}. */
export interface ChatRowProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** The session. */
  row: Row;
  /** It is the one shown in the detail column. */
  selected: boolean;
}

/** One conversation in Chat's list: its title, when it began, and a quiet word while it is not ended. */
export function ChatRow(props: ChatRowProps) {
  const { row } = props;
  const { word, tone } = shownState(row.state, row.cancelled === true);
  return (
    <li class={`chat-row ${props.selected ? "selected" : ""}`}>
      <Link
        href={projectPath(props.project, "chat", row.key)}
        class="chat-link"
        current={props.selected ? "page" : undefined}
      >
        <span class="primary chat-row-title">{row.title}</span>
        <span class="tertiary chat-row-facts">
          <RelativeTime iso={row.createdAt} />
          {word && (
            <>
              {" · "}
              <span class={`chat-state state-${tone}`}>{word}</span>
            </>
          )}
        </span>
      </Link>
    </li>
  );
}
