import type { AgentSession, ChatKept } from "../../runtime/web/api/chat_types.ts";
import { Link } from "../common/link.tsx";
import { recordPath } from "../state/route.ts";

/** Props of {@linkcode KeptLine}. */
export interface KeptLineProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** What the last Keep on this page did; null when none did. */
  kept: ChatKept | null;
  /** Nothing changed since that Keep. */
  unchanged: boolean;
  /** A Keep is under way and slow to answer. */
  keeping: boolean;
}

/**
 * What Keep wrote, under a conversation's header: the record, as a link to
 * it in the project's records, its revision, and what pressing Keep again
 * does — writes a new revision with what was said since, or nothing, when
 * nothing was.
 */
export function KeptLine(props: KeptLineProps) {
  const { session, kept } = props;
  const recordKey = kept?.key ?? session.keptAs;
  if (props.keeping) {
    return <p id="chat-kept" class="tertiary chat-kept" role="status">Keeping…</p>;
  }
  const link = recordKey === null
    ? null
    : <Link class="mono" href={keptPath(props.project, recordKey)}>{recordKey}</Link>;
  return (
    <p id="chat-kept" class="tertiary chat-kept" role="status">
      {link !== null && kept === null && <>Kept in this project's memory as {link}.{" "}</>}
      {link !== null && kept?.written === true && (
        <>Kept as {link}, revision {kept.revision}.{" "}</>
      )}
      {link !== null && kept?.written === false && (
        <>Nothing changed since it was kept: {link} stays at revision {kept.revision}.{" "}</>
      )}
      {link !== null && (props.unchanged
        ? "Keep again once something new is said."
        : "Keep again writes a new revision with what was said since.")}
    </p>
  );
}

/** The records view's address of a kept record's key, `kind/id`. */
function keptPath(project: string, key: string): string {
  const at = key.indexOf("/");
  return recordPath(project, key.slice(0, at), key.slice(at + 1));
}
