/**
 * A transcript as plain text: what a kept `chat.conversation` record holds
 * as its content, and what a new session is seeded with when the agent
 * cannot load its own.
 *
 * @module
 */
import type { TranscriptEntry } from "../transcript.ts";

/**
 * The transcript, one paragraph per entry that says something (a tool
 * call's updates fold into one line each; replayed entries are left out).
 *
 * @param entries The transcript, oldest first.
 * @param maxChars The longest text answered; the start is cut, keeping the end, past it.
 * @param maxBytes The most UTF-8 bytes answered, likewise (a record's content is counted in bytes).
 * @returns Markdown-like text: `**Person:** …`, `**Agent:** …`, `- [x] step`.
 */
export function transcriptText(
  entries: readonly TranscriptEntry[],
  maxChars: number,
  maxBytes: number = Infinity,
): string {
  const parts: string[] = [];
  const calls = new Map<string, { title: string; status: string }>();
  for (const entry of entries) {
    if (entry.replay) continue;
    switch (entry.kind) {
      case "user":
        parts.push(`**Person:** ${entry.text}`);
        break;
      case "message":
        parts.push(`**Agent:** ${entry.text}`);
        break;
      case "thought":
        parts.push(`_Thought:_ ${entry.text}`);
        break;
      case "tool_call":
        calls.set(entry.toolCallId, { title: entry.title, status: entry.status });
        parts.push(`Tool call: ${entry.title} (${entry.status})`);
        break;
      case "tool_call_update": {
        const call = calls.get(entry.toolCallId);
        if (call && entry.status && entry.status !== call.status) {
          call.status = entry.status;
          parts.push(`Tool call: ${entry.title ?? call.title} (${entry.status})`);
        }
        break;
      }
      case "plan":
        parts.push(
          `Plan:\n${
            entry.steps.map((s) => `- [${s.status === "completed" ? "x" : " "}] ${s.content}`)
              .join("\n")
          }`,
        );
        break;
      case "permission":
        parts.push(
          `The agent asked: ${entry.title} (${entry.options.map((o) => o.name).join(" / ")})`,
        );
        break;
      case "permission_answer":
        parts.push(
          entry.outcome === "selected"
            ? `Answered: ${entry.optionId}`
            : "The request was cancelled",
        );
        break;
      case "turn_end":
        if (entry.stopReason !== "end_turn") parts.push(`(The turn ended: ${entry.stopReason})`);
        break;
      case "failure":
        parts.push(`(Failed: ${entry.message})`);
        break;
      case "stopped":
        parts.push("(The turn stopped when Sync stopped)");
        break;
    }
  }
  return keepEnd(parts.join("\n\n"), maxChars, maxBytes);
}

/** Room kept for the mark that says how much was left out. */
const MARK_ROOM = 64;

/**
 * The end of `text` within `maxChars` characters and `maxBytes` bytes of
 * UTF-8, after a mark saying how many earlier characters were left out: the
 * end is what matters to whoever picks the conversation up.
 */
function keepEnd(text: string, maxChars: number, maxBytes: number): string {
  const encoder = new TextEncoder();
  if (
    text.length <= maxChars && (maxBytes === Infinity || encoder.encode(text).length <= maxBytes)
  ) {
    return text;
  }
  let start = text.length;
  let bytes = 0;
  while (start > 0) {
    const unit = text.charCodeAt(start - 1);
    // A pair of surrogates is one character, four bytes, kept or left out whole.
    const pair = unit >= 0xdc00 && unit <= 0xdfff && start > 1;
    const size = pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    const width = pair ? 2 : 1;
    if (text.length - start + width > maxChars - MARK_ROOM || bytes + size > maxBytes - MARK_ROOM) {
      break;
    }
    start -= width;
    bytes += size;
  }
  return `[… ${start.toLocaleString("en-US")} earlier characters left out]\n\n${text.slice(start)}`;
}
