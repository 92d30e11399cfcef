import { useRef, useState } from "preact/hooks";
import type { AgentSession, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { SignInWayView } from "./sign_in_way_view.tsx";

/** Props of {@linkcode TurnBox}. */
export interface TurnBoxProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** Told the session as an action left it. */
  onSession: (answer: ChatSessionResponse) => void;
}

type Action = "prompt" | "cancel" | "continue";

/**
 * The conversation's controls: a box for the next turn (Enter sends,
 * Shift+Enter starts a new line), Cancel while the agent works, and
 * Continue for a session that was interrupted or has ended. While the next
 * turn cannot be sent, the box looks closed and says why; what is typed in
 * it meanwhile waits there.
 */
export function TurnBox(props: TurnBoxProps) {
  const { session } = props;
  const [text, setText] = useState("");
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  // What the last action did, for as long as the session stays where that action left it.
  const [said, setSaid] = useState<{ text: string; state: string }[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const slow = useDelayed(busy !== null, 300);
  const working = session.state === "running" || session.state === "waiting" ||
    session.state === "ordered";
  const signIn = session.waitingFor?.kind === "sign-in" ? session.waitingFor : null;
  // While a sign-in waits, what is sent is kept and sent once the agent's session opens.
  const canSend = session.state === "ended" || session.state === "interrupted" || signIn !== null;
  // Signed in meanwhile, a person raises the agent again with Continue.
  const canContinue = canSend;
  const reason = reasonOf(session);

  const act = async (action: Action) => {
    if (busy) return;
    if (action === "prompt" && (!canSend || text.trim() === "")) return;
    setBusy(action);
    setError(null);
    setSaid([]);
    try {
      const answer = await postJson<ChatSessionResponse>(
        `/api/chat/sessions/${encodeURIComponent(session.key)}/${action}`,
        action === "prompt" ? { project: props.project, text } : { project: props.project },
      );
      props.onSession(answer);
      if (action === "prompt") {
        setText("");
        setSaid([{
          text: answer.session.state === "waiting"
            ? "Kept: the agent gets it once you sign in and continue."
            : "Sent. The agent is working on it.",
          state: answer.session.state,
        }]);
      } else if (action === "cancel") {
        setSaid([{ text: "Cancelled the turn.", state: answer.session.state }]);
      } else {
        // Raising the agent again runs on after the answer; the turn can be typed once it ended.
        setSaid([
          { text: "Raising the agent again…", state: "running" },
          {
            text: "Continued: the agent has the conversation again. Type the next turn.",
            state: "ended",
          },
        ]);
        box.current?.focus();
      }
    } catch (thrown) {
      // What was typed stays in the box, to send again.
      setError(messageOf(thrown));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div class="turn-box">
      {session.state === "interrupted" && (
        <p class="turn-notice">
          Interrupted: Sync stopped while the agent was working. {interruptedWords(session)}{" "}
          Continue raises the agent again; then type the next turn.
        </p>
      )}
      {session.state === "failed" && <p class="secondary turn-notice">{reason}</p>}
      {signIn && (signIn.ways ?? []).length > 0 && (
        <section class="turn-notice" aria-labelledby="sign-in-heading">
          <h3 id="sign-in-heading" class="sign-in-heading">Sign in to {session.agent} to go on</h3>
          <ul class="sign-in-ways">
            {signIn.ways!.map((way) => (
              <SignInWayView
                key={way.id}
                way={way}
                agent={session.agent}
                sessionKey={session.key}
                project={props.project}
                onSession={props.onSession}
              />
            ))}
          </ul>
        </section>
      )}
      {session.state !== "failed" && (
        <form
          class="turn-form"
          onSubmit={(event) => {
            event.preventDefault();
            void act("prompt");
          }}
        >
          <label class="visually-hidden" for="turn-text">Next turn</label>
          {/* Open to typing at any time, so the next turn can be drafted while the agent works. */}
          <textarea
            id="turn-text"
            ref={box}
            class={`input turn-text ${canSend ? "" : "turn-text-closed"}`}
            rows={3}
            value={text}
            placeholder={canSend ? "Say what to do next" : ""}
            aria-describedby={reason ? "turn-reason" : undefined}
            onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
                event.preventDefault();
                void act("prompt");
              }
            }}
          />
          <div class="turn-actions">
            {reason && <p id="turn-reason" class="tertiary turn-reason">{reason}</p>}
            {working && (
              <button
                type="button"
                class="button"
                aria-disabled={busy !== null}
                onClick={() => act("cancel")}
              >
                Cancel
              </button>
            )}
            {canContinue && (
              <button
                type="button"
                class="button"
                aria-disabled={busy !== null}
                onClick={() => act("continue")}
              >
                Continue
              </button>
            )}
            <button
              type="submit"
              class="button primary"
              aria-disabled={!canSend || busy !== null || text.trim() === ""}
            >
              Send
            </button>
          </div>
        </form>
      )}
      {error && <p class="error" role="alert">{error}</p>}
      <p class="tertiary turn-said" role="status">
        {slow ? busyWords(busy) : said.find((line) => line.state === session.state)?.text ?? ""}
      </p>
    </div>
  );
}

/** What the order asked for after an interruption; whatever it asked, nothing resumes by itself. */
function interruptedWords(session: AgentSession): string {
  if (session.source.kind === "person") return "Nothing resumes by itself.";
  return session.onInterrupted === "continue"
    ? "Its order asked to go on after an interruption (onInterrupted: continue), but nothing resumes by itself."
    : "Its order asked to wait for a person after an interruption (onInterrupted: wait), and nothing resumes by itself.";
}

/** Why the next turn cannot be typed now; null when it can. */
function reasonOf(session: AgentSession): string | null {
  switch (session.state) {
    case "ordered":
      return "The agent is starting.";
    case "running":
      return "The agent is working on this turn. Wait for it to end, or cancel it.";
    case "waiting":
      return session.waitingFor?.kind === "sign-in"
        ? session.waitingFor.text
        : "The agent waits for your answer above.";
    case "failed":
      return "The agent failed, so this conversation cannot go on. Begin a new conversation.";
    default:
      return null;
  }
}

function busyWords(busy: Action | null): string {
  switch (busy) {
    case "prompt":
      return "Sending…";
    case "cancel":
      return "Cancelling…";
    case "continue":
      return "Raising the agent again…";
    default:
      return "";
  }
}
