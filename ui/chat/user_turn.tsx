import type { UserEntry } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode UserTurn}. */
export interface UserTurnProps {
  /** The turn. */
  entry: UserEntry;
  /** Who said it: "You", or the order that began the session. */
  who: string;
  /** Folded to its first line until opened: an order's prompt, which carries its instructions. */
  folded?: boolean;
}

/** A turn's prompt, as it was said: text, with its line breaks. */
export function UserTurn(props: UserTurnProps) {
  const text = props.entry.text;
  const first = text.trim().split("\n", 1)[0];
  if (props.folded && first !== text.trim()) {
    return (
      <article class="chat-entry user-turn" aria-label={`${props.who} said`}>
        <details class="user-turn-folded">
          <summary class="user-turn-summary">
            <span class="chat-entry-who tertiary">{props.who}</span>
            <span class="user-turn-first">{first}</span>
          </summary>
          <div class="user-turn-text">{text}</div>
        </details>
      </article>
    );
  }
  return (
    <article class="chat-entry user-turn" aria-label={`${props.who} said`}>
      <div class="chat-entry-who tertiary">{props.who}</div>
      <div class="user-turn-text">{text}</div>
    </article>
  );
}
