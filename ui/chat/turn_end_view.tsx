import type { StoppedEntry, TurnEndEntry } from "../../runtime/web/api/chat_types.ts";
import { stopWords } from "./chat_words.ts";

/** Props of {@linkcode TurnEndView}. */
export interface TurnEndViewProps {
  /** The end of a turn, or the turn Sync stopped as it stopped itself. */
  entry: TurnEndEntry | StoppedEntry;
}

/**
 * A quiet line where a turn ended, saying why when it was not the ordinary
 * end; a turn that ended because Sync stopped says so, as no one's failure.
 */
export function TurnEndView(props: TurnEndViewProps) {
  const { entry } = props;
  const ordinary = entry.kind === "turn_end" && entry.stopReason === "end_turn";
  return (
    <div class={`chat-entry turn-end ${ordinary ? "" : "turn-stopped"}`}>
      <span class="tertiary">
        {entry.kind === "stopped" ? "Stopped when Sync stopped" : stopWords(entry.stopReason)}
      </span>
    </div>
  );
}
