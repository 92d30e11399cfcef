import type { ChatListResponse, ChatRow } from "../../runtime/web/api/chat_types.ts";
import { matchesFilter } from "../common/filter_match.ts";

/**
 * Chat's list as its filter leaves it: each row kept when the filter's words
 * are in its title, its agent's name or the name of the extension that
 * ordered it; a group with no row left goes. Archived sessions are filtered
 * the same way.
 *
 * @param list The project's sessions, grouped.
 * @param query What the person typed.
 */
export function filterChatList(list: ChatListResponse, query: string): ChatListResponse {
  const keep = (rows: ChatRow[], group?: string) =>
    rows.filter((row) => matchesFilter(query, [row.title, row.agent, group]));
  return {
    ...list,
    conversations: keep(list.conversations),
    groups: list.groups
      .map((group) => ({ ...group, rows: keep(group.rows, group.name) }))
      .filter((group) => group.rows.length > 0),
    archived: keep(list.archived ?? []),
  };
}

/** How many sessions a list holds, in every group. */
export function chatRowCount(list: ChatListResponse): number {
  return list.conversations.length +
    list.groups.reduce((sum, group) => sum + group.rows.length, 0);
}
