import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatListResponse, ChatRow } from "../../runtime/web/api/chat_types.ts";
import type { StreamEvent } from "../../runtime/web/api/events_types.ts";
import { getJson, messageOf } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";
import { navigate, projectPath } from "../state/route.ts";
import { ChatDetail } from "./chat_detail.tsx";
import { ChatList } from "./chat_list.tsx";

/** Props of {@linkcode ChatArea}. */
export interface ChatAreaProps {
  /** The project's live state. */
  state: ProjectState;
  /** The key of the session shown; null when none is. */
  selected: string | null;
}

/**
 * The Chat area: every agent session of the project, whoever ordered it, and
 * the selected one's conversation. The list is read again when a session's
 * pointer changes. A conversation deleted, here or anywhere, leaves the list
 * at once; when it was the one shown, the area goes back to its list and
 * says it was deleted, until another conversation is chosen.
 */
export function ChatArea(props: ChatAreaProps) {
  const { state } = props;
  const [list, setList] = useState<ChatListResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reading = useRef<{ busy: boolean; again: boolean }>({ busy: false, again: false });
  // The title of the conversation deleted while it was shown; null when none was.
  const [deleted, setDeleted] = useState<string | null>(null);
  // Read by the stream's listener, which outlives a render.
  const selected = useRef(props.selected);
  selected.current = props.selected;
  const listed = useRef(list);
  listed.current = list;
  useEffect(() => {
    if (props.selected !== null) setDeleted(null);
  }, [props.selected]);
  const gone = (key: string, title: string) => {
    setList((before) => before && withoutRow(before, key));
    if (selected.current !== key) return;
    setDeleted(title);
    navigate(projectPath(state.project, "chat"));
  };
  const read = async () => {
    // One read at a time; facts that come during it ask for one more after it.
    if (reading.current.busy) {
      reading.current.again = true;
      return;
    }
    reading.current.busy = true;
    do {
      reading.current.again = false;
      try {
        setList(await getJson<ChatListResponse>("/api/chat", { project: state.project }));
        setError(null);
      } catch (thrown) {
        setError(messageOf(thrown));
      }
    } while (reading.current.again);
    reading.current.busy = false;
  };
  useEffect(() => {
    void read();
    return state.listen((event: StreamEvent) => {
      if (event.type === "session" && event.deleted) gone(event.session.key, event.session.title);
      if (event.type === "session" || event.type === "resync") void read();
    });
  }, [state]);
  const empty = list !== null && list.conversations.length === 0 && list.groups.length === 0 &&
    (list.archived ?? []).length === 0;
  return (
    <>
      <ChatList
        project={state.project}
        list={list}
        error={error}
        selected={props.selected}
        onBegun={() => void read()}
      />
      <main class="detail-column chat-column" aria-label="Conversation">
        {props.selected
          ? (
            <ChatDetail
              key={props.selected}
              state={state}
              sessionKey={props.selected}
              onDeleted={() => {
                const key = props.selected!;
                gone(key, titleOf(listed.current, key) ?? key);
                void read();
              }}
            />
          )
          : (
            <div class="empty-detail">
              <div>
                {deleted !== null && <p class="deleted-line" role="status">Deleted “{deleted}”.</p>}
                <p class="secondary">
                  {empty
                    ? "A conversation is an agent working in this project's folder. Begin one with New conversation."
                    : "Choose a conversation to read it, answer the agent, or go on with it."}
                </p>
              </div>
            </div>
          )}
      </main>
    </>
  );
}

/** The list without the session `key`, wherever it was listed. */
function withoutRow(list: ChatListResponse, key: string): ChatListResponse {
  const keep = (row: ChatRow) => row.key !== key;
  return {
    ...list,
    conversations: list.conversations.filter(keep),
    groups: list.groups
      .map((group) => ({ ...group, rows: group.rows.filter(keep) }))
      .filter((group) => group.rows.length > 0),
    archived: (list.archived ?? []).filter(keep),
  };
}

/** The title of the session `key` in the list; null when it is not listed. */
function titleOf(list: ChatListResponse | null, key: string): string | null {
  if (list === null) return null;
  const rows = [
    ...list.conversations,
    ...list.groups.flatMap((group) => group.rows),
    ...(list.archived ?? []),
  ];
  return rows.find((row) => row.key === key)?.title ?? null;
}
