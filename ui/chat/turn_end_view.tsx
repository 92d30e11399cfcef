import type { TurnEndEntry } from "../../runtime/web/api/chat_types.ts";
import { stopWords } from "./chat_words.ts";

/** Props of {@linkcode TurnEndView}. */
export interface TurnEndViewProps {
  /** The end of a turn. */
  entry: TurnEndEntry;
}

/** A quiet line where a turn ended, saying why when it was not the ordinary end. */
export function TurnEndView(props: TurnEndViewProps) {
  const ordinary = props.entry.stopReason === "end_turn";
  return (
    <div class={`chat-entry turn-end ${ordinary ? "" : "turn-stopped"}`}>
      <span class="tertiary">{stopWords(props.entry.stopReason)}</span>
    </div>
  );
}
