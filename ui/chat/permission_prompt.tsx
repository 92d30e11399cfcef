import { useEffect, useRef, useState } from "preact/hooks";
import type {
  ChatSessionResponse,
  PermissionAnswerEntry,
  PermissionEntry,
} from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { connected } from "../state/connection.ts";
import { useAnsweringError } from "../state/use_answering_error.ts";

/** Props of {@linkcode PermissionPrompt}. */
export interface PermissionPromptProps {
  /** The request, with the agent's own options. */
  request: PermissionEntry;
  /** How it was answered; null while it is not. */
  answer: PermissionAnswerEntry | null;
  /** The session waits for this request now: its options can be chosen. */
  active: boolean;
  /** The session is no longer working on a turn, so an unanswered request never will be. */
  over: boolean;
  /** The session's key. */
  sessionKey: string;
  /** The project folder. */
  project: string;
  /** Told the session as the answer left it. */
  onAnswered: (answer: ChatSessionResponse) => void;
  /** The window's live stream is open: Sync answers. */
  live: boolean;
}

/**
 * A permission the agent asked for: what it wants to do and its own options
 * as buttons, named as the agent named them. While the session waits for it
 * the focus comes here; once answered it says what was chosen, and keeps the
 * focus of the button that answered it (which goes). An error of answering
 * holds only while it is news: it goes once the prompt closes, is answered,
 * or Sync answers again after the connection was lost.
 */
export function PermissionPrompt(props: PermissionPromptProps) {
  const { request, answer } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useAnsweringError();
  const open = props.active && answer === null;
  useEffect(() => {
    if (open) ref.current?.focus({ preventScroll: false });
  }, [open]);
  // Said when the prompt could be answered; once it closes or is answered, it is stale.
  useEffect(() => setError(null), [open, answer]);
  const wasLive = useRef(props.live);
  useEffect(() => {
    if (props.live && !wasLive.current) setError(null);
    wasLive.current = props.live;
  }, [props.live]);
  const choose = async (optionId: string) => {
    // While Sync does not answer, the answer could not reach the agent.
    if (busy || !connected.value) return;
    setBusy(optionId);
    setError(null);
    try {
      const session = await postJson<ChatSessionResponse>(
        `/api/chat/sessions/${encodeURIComponent(props.sessionKey)}/permission`,
        { project: props.project, requestId: request.requestId, optionId },
      );
      props.onAnswered(session);
      // The buttons go with the answer; the prompt, which now says it, keeps the focus
      // (unless the person has moved it elsewhere meanwhile).
      const focused = document.activeElement;
      if (!focused || focused === document.body || ref.current?.contains(focused)) {
        ref.current?.focus({ preventScroll: true });
      }
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(null);
    }
  };
  const titleId = `permission-${request.requestId}`;
  const chosen = answer?.outcome === "selected"
    ? request.options.find((option) => option.optionId === answer.optionId)?.name ??
      answer.optionId
    : null;
  return (
    <div
      ref={ref}
      class={`chat-entry permission ${open ? "permission-open" : ""}`}
      role="group"
      aria-labelledby={titleId}
      tabIndex={-1}
    >
      <div class="chat-entry-who tertiary">The agent asks permission</div>
      <p id={titleId} class="permission-title">{request.title}</p>
      {answer === null && open && (
        <div class="permission-options">
          {request.options.map((option) => (
            <button
              key={option.optionId}
              type="button"
              class={`button ${option.optionKind.startsWith("allow") ? "" : "permission-reject"}`}
              aria-disabled={busy !== null || !connected.value}
              onClick={() => choose(option.optionId)}
            >
              {option.name}
            </button>
          ))}
        </div>
      )}
      {answer === null && !open && props.over && (
        <p class="tertiary">Not answered: the turn it belonged to is over.</p>
      )}
      {answer !== null && (
        <p class="secondary permission-answer">
          {chosen !== null
            ? (
              <>
                Answered: <strong>{chosen}</strong>
              </>
            )
            : "Cancelled with the turn"}
        </p>
      )}
      {error && <p class="error" role="alert">{error}</p>}
    </div>
  );
}
