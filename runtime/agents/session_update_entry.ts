/**
 * Turns what an agent sends (`session/update`) into transcript entries,
 * bounding every string on the way: texts, titles, ids and paths are cut,
 * and a tool call names at most `AGENT_LIMITS.maxToolPaths` paths, so that
 * no entry is larger than a few tens of KiB whatever the agent sends.
 *
 * @module
 */
import type * as acp from "@agentclientprotocol/sdk";
import { cutText } from "../internal/cut_text.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import type { ToolCallStatus, TranscriptEntry } from "../transcript.ts";

/** One `session/update` as ACP spells it, checked by the SDK. */
export type SessionUpdate = acp.SessionUpdate;

/** A content block as ACP spells it: text, image, audio, a resource or a link to one. */
export type ContentBlock = acp.ContentBlock;

/** Options for {@linkcode entryFromUpdate}. */
export interface EntryFromUpdateOptions {
  /** The entry's time, as an ISO 8601 time. */
  at: string;
  /** True while a loaded session is being replayed. */
  replay: boolean;
}

/**
 * The transcript entry for one `session/update`, or null for the updates a
 * transcript does not keep (available commands, modes, config options,
 * session info, usage and other bookkeeping).
 *
 * @param update The update as the agent sent it, checked by the SDK.
 * @param options When, and whether it is a replay.
 */
export function entryFromUpdate(
  update: SessionUpdate,
  options: EntryFromUpdateOptions,
): TranscriptEntry | null {
  const base = options.replay ? { at: options.at, replay: true } : { at: options.at };
  const text = (value: string) => cutText(value, AGENT_LIMITS.maxEntryChars);
  const title = (value: string) => cutText(value, AGENT_LIMITS.maxTitleChars);
  switch (update.sessionUpdate) {
    case "user_message_chunk":
      return { ...base, kind: "user", text: text(blockText(update.content)) };
    case "agent_message_chunk":
    case "agent_thought_chunk": {
      const kind = update.sessionUpdate === "agent_message_chunk" ? "message" : "thought";
      const entry = { ...base, kind, text: text(blockText(update.content)) } as const;
      return update.messageId ? { ...entry, messageId: agentId(update.messageId) } : entry;
    }
    case "tool_call":
      return {
        ...base,
        kind: "tool_call",
        toolCallId: agentId(update.toolCallId),
        title: title(update.title),
        ...(update.kind ? { toolKind: update.kind } : {}),
        status: update.status ?? "pending",
        ...toolContent(update.content, update.locations),
      };
    case "tool_call_update":
      return {
        ...base,
        kind: "tool_call_update",
        toolCallId: agentId(update.toolCallId),
        ...(update.title ? { title: title(update.title) } : {}),
        ...(update.kind ? { toolKind: update.kind } : {}),
        ...(update.status ? { status: update.status as ToolCallStatus } : {}),
        ...toolContent(update.content, update.locations),
      };
    case "plan": {
      const max = AGENT_LIMITS.maxPlanEntries;
      const steps = update.entries.slice(0, max).map((step) => ({
        content: cutText(step.content, 2_000),
        priority: step.priority,
        status: step.status,
      }));
      const omitted = update.entries.length - steps.length;
      return { ...base, kind: "plan", steps, ...(omitted > 0 ? { omitted } : {}) };
    }
    default:
      return null;
  }
}

/**
 * An id the agent gave (a tool call's, a message's, an option's), cut to
 * `AGENT_LIMITS.maxIdChars`: the same id is always cut the same way.
 *
 * @param id The id as the agent sent it.
 */
export function agentId(id: string): string {
  return cutText(id, AGENT_LIMITS.maxIdChars);
}

/**
 * The text of a content block; what is not text is named in brackets, since
 * a transcript keeps no images, audio or embedded blobs.
 *
 * @param block A content block from the agent.
 */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    case "resource_link":
      return `[${block.name}: ${block.uri}]`;
    case "resource":
      return "text" in block.resource
        ? `[${block.resource.uri}]\n${block.resource.text}`
        : `[${block.resource.uri}]`;
    default:
      return "[content]";
  }
}

/** A tool call's content and locations as the entry keeps them: one text, and paths. */
function toolContent(
  content: acp.ToolCallContent[] | null | undefined,
  locations: acp.ToolCallLocation[] | null | undefined,
): { text?: string; paths?: string[] } {
  const out: { text?: string; paths?: string[] } = {};
  if (content) {
    const parts = content.map((part) => {
      if (part.type === "content") return blockText(part.content);
      if (part.type === "diff") return `Edit of ${part.path}:\n${part.newText}`;
      return `[terminal ${part.terminalId}]`;
    });
    out.text = cutText(parts.join("\n"), AGENT_LIMITS.maxEntryChars);
  }
  if (locations) {
    out.paths = locations.slice(0, AGENT_LIMITS.maxToolPaths).map((location) =>
      cutText(location.path, AGENT_LIMITS.maxPathChars)
    );
  }
  return out;
}
