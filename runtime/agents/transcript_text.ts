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
 * @returns Markdown-like text: `**Person:** …`, `**Agent:** …`, `- [x] step`.
 */
export function transcriptText(entries: readonly TranscriptEntry[], maxChars: number): string {
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
    }
  }
  const text = parts.join("\n\n");
  if (text.length <= maxChars) return text;
  // The end is what matters to whoever picks the conversation up.
  const mark = `[… ${
    (text.length - maxChars).toLocaleString("en-US")
  } earlier characters left out]\n\n`;
  let start = text.length - Math.max(0, maxChars - mark.length);
  const first = text.charCodeAt(start);
  if (first >= 0xdc00 && first <= 0xdfff) start++;
  return mark + text.slice(start);
}
