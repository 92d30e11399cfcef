import { useEffect, useState } from "preact/hooks";
import type { ChatListResponse, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { connected } from "../state/connection.ts";
import { navigate, projectPath } from "../state/route.ts";
import { ListFilter } from "../common/list_filter.tsx";
import { NoMatches } from "../common/no_matches.tsx";
import { useListKeys } from "../common/use_list_keys.ts";
import { listFilter } from "../state/list_filters.ts";
import { requestedAction } from "../state/requested_action.ts";
import { chatRowCount, filterChatList } from "./chat_filter.ts";
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
 * and New conversation. A filter keeps the rows whose title, agent or
 * ordering extension has its words; arrow keys move among the rows.
 */
export function ChatList(props: ChatListProps) {
  const filter = listFilter(props.project, "chat");
  const column = useListKeys<HTMLElement>({ rows: ".chat-link" });
  const total = props.list === null ? 0 : chatRowCount(props.list);
  const list = props.list === null ? null : filterChatList(props.list, filter.value);
  const shown = list === null ? 0 : chatRowCount(list);
  const [asking, setAsking] = useState(false);
  // The command palette's "New conversation…".
  const asked = requestedAction.value === "new-conversation";
  useEffect(() => {
    if (!asked) return;
    requestedAction.value = null;
    setAsking(true);
  }, [asked]);
  const begun = (answer: ChatSessionResponse) => {
    setAsking(false);
    props.onBegun();
    navigate(projectPath(props.project, "chat", answer.session.key));
  };
  // While Sync does not answer, nothing can begin: the buttons are held, as Send is.
  const off = !connected.value;
  const empty = props.list !== null && total === 0 && (props.list.archived ?? []).length === 0;
  return (
    <section class="list-column" aria-labelledby="chat-title" ref={column}>
      <header class="column-header">
        <h1 id="chat-title" class="column-title">Chat</h1>
        <button
          type="button"
          class="button"
          aria-disabled={off}
          onClick={() => !off && setAsking(true)}
        >
          New conversation
        </button>
        {total > 0 && (
          <ListFilter
            value={filter}
            label="Filter conversations"
            placeholder="Filter by title, agent or extension"
            shown={shown}
            total={total}
            units={["conversation", "conversations"]}
          />
        )}
      </header>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      {empty && (
        <div class="empty empty-action">
          <p class="secondary">
            No conversations in this project. Begin one with an agent, or install an extension that
            orders work.
          </p>
          <button
            type="button"
            class="button primary"
            aria-disabled={off}
            onClick={() => !off && setAsking(true)}
          >
            Begin a conversation…
          </button>
        </div>
      )}
      {total > 0 && shown === 0 && <NoMatches value={filter} units="conversations" />}
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
