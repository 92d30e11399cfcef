/**
 * How a tool call's card names the call and its kind. Agents title a call
 * to an MCP server's tool as `<tool> (<server>)` ("sync-mcp (sync)"), and
 * give `other` as the kind of any tool that is not a read, an edit, a run…:
 * the card says whose tool it is in words, and leaves the kind out when it
 * says nothing.
 *
 * @module
 */

/** The name the window offers its MCP server under, and the name that server gives itself. */
const SYNC_SERVER = "sync";
const SYNC_SERVER_INFO = "sync-mcp";

/**
 * The card's title: a `<tool> (<server>)` title in words ("A tool of Sync:
 * memory_list"), any other title as the agent wrote it.
 *
 * @param title The call's title, in the agent's words.
 */
export function toolTitleWords(title: string): string {
  const found = /^(.+?) \(([\w.-]+)\)$/.exec(title.trim());
  if (!found) return title;
  const [, tool, server] = found;
  const whose = server === SYNC_SERVER ? "Sync" : server;
  return tool === SYNC_SERVER_INFO || tool === server
    ? `A tool of ${whose}`
    : `A tool of ${whose}: ${tool}`;
}

/**
 * The kind shown beside the title, or null when it says nothing (`other`,
 * or none given).
 *
 * @param kind The agent's kind of tool.
 */
export function toolKindWords(kind: string | undefined): string | null {
  return kind === undefined || kind === "" || kind === "other" ? null : kind;
}
