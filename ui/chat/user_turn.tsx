import type { UserEntry } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode UserTurn}. */
export interface UserTurnProps {
  /** The turn. */
  entry: UserEntry;
  /** Who said it: "You", or the source that ordered the session. */
  who: string;
}

/** A turn's prompt, as it was said: text, with its line breaks. */
export function UserTurn(props: UserTurnProps) {
  return (
    <article class="chat-entry user-turn" aria-label={`${props.who} said`}>
      <div class="chat-entry-who tertiary">{props.who}</div>
      <div class="user-turn-text">{props.entry.text}</div>
    </article>
  );
}
