import type { ChatListResponse } from "../../runtime/web/api/chat_types.ts";
import type { ExtensionSummary } from "../../runtime/web/api/types.ts";
import { matchesFilter } from "../common/filter_match.ts";
import type { RequestedAction } from "../state/requested_action.ts";

/** What choosing a palette entry does. */
export type PaletteTarget =
  | { kind: "go"; path: string; action?: RequestedAction }
  | { kind: "shortcuts" };

/** One entry of the command palette. */
export interface PaletteItem {
  /** Unique among the entries: the element's id is made from it. */
  key: string;
  /** The group it is listed under. */
  group: "Actions" | "Go to" | "Extensions" | "Conversations";
  /** What it is, or what it does. */
  label: string;
  /** A quiet fact beside it: what an extension does, a conversation's agent. */
  detail: string;
  /** More words it is found by, not shown: an extension's id. */
  words?: string;
  /** What choosing it does. */
  target: PaletteTarget;
}

/** What the palette lists entries of. */
export interface PaletteSources {
  /** The installed packages; null until read. */
  extensions: readonly ExtensionSummary[] | null;
  /** Chat's sessions; null until read. */
  chat: ChatListResponse | null;
  /**
   * The address of an area of the project's window, or of a row in it: `projectPath`, given in
   * so that these entries are made without the browser's address bar.
   */
  pathOf: (
    area: "extensions" | "devices" | "chat" | "records" | "screen",
    id?: string,
  ) => string;
}

/**
 * The palette's entries that every word of `query` matches, in its groups'
 * order: actions, places, extensions, conversations. A screen is a place
 * once its package serves the project, as in the navigator.
 *
 * @param sources What there is to list.
 * @param query What the person typed.
 */
export function paletteItems(sources: PaletteSources, query: string): PaletteItem[] {
  const { pathOf } = sources;
  const extensions = sources.extensions ?? [];
  const items: PaletteItem[] = [
    {
      key: "install",
      group: "Actions",
      label: "Install an extension…",
      detail: "From a folder or an archive",
      target: { kind: "go", path: pathOf("extensions"), action: "install" },
    },
    {
      key: "new-conversation",
      group: "Actions",
      label: "New conversation…",
      detail: "With an agent, in this project's folder",
      target: { kind: "go", path: pathOf("chat"), action: "new-conversation" },
    },
    {
      key: "shortcuts",
      group: "Actions",
      label: "Keyboard shortcuts",
      detail: "?",
      target: { kind: "shortcuts" },
    },
    {
      key: "area-extensions",
      group: "Go to",
      label: "Extensions",
      detail: "g e",
      target: { kind: "go", path: pathOf("extensions") },
    },
    {
      key: "area-devices",
      group: "Go to",
      label: "Devices",
      detail: "g d",
      words: "applets accounts",
      target: { kind: "go", path: pathOf("devices") },
    },
    {
      key: "area-chat",
      group: "Go to",
      label: "Chat",
      detail: "g c",
      target: { kind: "go", path: pathOf("chat") },
    },
    {
      key: "area-records",
      group: "Go to",
      label: "Records",
      detail: "g r",
      words: "memory",
      target: { kind: "go", path: pathOf("records") },
    },
    {
      key: "all-projects",
      group: "Go to",
      label: "All projects",
      detail: "g p",
      target: { kind: "go", path: "/" },
    },
  ];
  for (const extension of extensions) {
    if (!extension.hasScreen || extension.lamp.state === "dark") continue;
    items.push({
      key: `screen-${extension.id}`,
      group: "Go to",
      label: `${extension.name} screen`,
      detail: extension.id,
      target: { kind: "go", path: pathOf("screen", extension.id) },
    });
  }
  for (const extension of extensions) {
    items.push({
      key: `extension-${extension.id}`,
      group: "Extensions",
      label: extension.name,
      detail: extension.description,
      words: extension.id,
      target: { kind: "go", path: pathOf("extensions", extension.id) },
    });
  }
  const chat = sources.chat;
  const sessions = chat
    ? [
      ...chat.conversations.map((row) => ({ row, by: "" })),
      ...chat.groups.flatMap((group) => group.rows.map((row) => ({ row, by: group.name }))),
    ]
    : [];
  for (const { row, by } of sessions) {
    items.push({
      key: `session-${row.key}`,
      group: "Conversations",
      label: row.title,
      detail: by ? `${row.agent}, for ${by}` : row.agent,
      target: { kind: "go", path: pathOf("chat", row.key) },
    });
  }
  return items.filter((item) => matchesFilter(query, [item.label, item.detail, item.words]));
}
