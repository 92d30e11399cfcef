import { useState } from "preact/hooks";
import type { ChatListResponse, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { navigate, projectPath } from "../state/route.ts";
import { ArchivedGroup } from "./archived_group.tsx";
import { ChatGroup } from "./chat_group.tsx";
import { NewConversationDialog } from "./new_conversation_dialog.tsx";

/** Props of {@linkcode ChatList}. */
export interface ChatListProps {
  /** The project folder, as the address gives it. */
  project: string;
  /** The project's sessions, grouped; null until read. */
  list: ChatListResponse | null;
  /** Why they could not be read. */
  error: string | null;
  /** The key of the session shown in the detail column. */
  selected: string | null;
  /** Told a conversation was begun, before it is shown. */
  onBegun: () => void;
}

/**
 * Chat's list: what nobody ordered first, under Conversations, then one
 * group per ordering extension, the group with the newest session first;
 * and New conversation.
 */
export function ChatList(props: ChatListProps) {
  const { list } = props;
  const [asking, setAsking] = useState(false);
  const begun = (answer: ChatSessionResponse) => {
    setAsking(false);
    props.onBegun();
    navigate(projectPath(props.project, "chat", answer.session.key));
  };
  const empty = list !== null && list.conversations.length === 0 && list.groups.length === 0 &&
    (list.archived ?? []).length === 0;
  return (
    <section class="list-column" aria-labelledby="chat-title">
      <header class="column-header">
        <h1 id="chat-title" class="column-title">Chat</h1>
        <button type="button" class="button" onClick={() => setAsking(true)}>
          New conversation
        </button>
      </header>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {empty && (
        <p class="empty secondary">
          No conversations in this project. Begin one with an agent, or install an extension that
          orders work.
        </p>
      )}
      {list !== null && list.conversations.length > 0 && (
        <ChatGroup
          id="chat-group-conversations"
          title="Conversations"
          rows={list.conversations}
          project={props.project}
          selected={props.selected}
        />
      )}
      {list?.groups.map((group) => (
        <ChatGroup
          key={group.extensionId}
          id={`chat-group-${group.extensionId.replace(/[^a-z0-9-]+/gi, "-")}`}
          title={group.name}
          rows={group.rows}
          project={props.project}
          selected={props.selected}
        />
      ))}
      {list !== null && (
        <ArchivedGroup
          rows={list.archived ?? []}
          project={props.project}
          selected={props.selected}
        />
      )}
      {asking && (
        <NewConversationDialog
          project={props.project}
          onClose={() => setAsking(false)}
          onBegun={begun}
        />
      )}
    </section>
  );
}
