import type { MessageEntry } from "../../runtime/web/api/chat_types.ts";
import { Markdown } from "../common/markdown.tsx";

/** Props of {@linkcode AgentMessage}. */
export interface AgentMessageProps {
  /** The reply, its chunks joined. */
  entry: MessageEntry;
  /** The agent's name. */
  agent: string;
}

/** A piece of the agent's reply: a small part of markdown drawn as elements, never as HTML. */
export function AgentMessage(props: AgentMessageProps) {
  return (
    <article class="chat-entry agent-message" aria-label={`${props.agent} said`}>
      <div class="chat-entry-who tertiary">{props.agent}</div>
      <Markdown text={props.entry.text} headingLevel={4} />
    </article>
  );
}
