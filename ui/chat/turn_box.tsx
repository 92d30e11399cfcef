import { useRef, useState } from "preact/hooks";
import type { AgentSession, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { messageOf, postJson } from "../api/client.ts";
import { connected } from "../state/connection.ts";
import { useAnsweringError } from "../state/use_answering_error.ts";
import { useDelayed } from "../common/use_delayed.ts";
import { AgentWords } from "./agent_words.tsx";
import { cancelledBySync, messagesWords, signInLead } from "./chat_words.ts";
import { SignInWayView } from "./sign_in_way_view.tsx";

/** Props of {@linkcode TurnBox}. */
export interface TurnBoxProps {
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** The agent is being raised: it has not begun a turn yet. */
  starting: boolean;
  /** Told the session as an action left it. */
  onSession: (answer: ChatSessionResponse) => void;
}

type Action = "prompt" | "cancel" | "continue";

/** A line of what the last action did, shown while the session stays as that action left it. */
interface Said {
  text: string;
  when: (session: AgentSession) => boolean;
}

/**
 * The conversation's controls: a box for the next turn (Enter sends,
 * Shift+Enter starts a new line), Cancel while the agent works, and
 * Continue where it does something: for a session that was interrupted,
 * failed, or waits for a sign-in, saying what it will do. An ended one has
 * no Continue: the next turn raises its agent again when it needs to. While the agent is being raised, waits for a sign-in or has
 * failed, what is sent is kept and sent once the agent is up. While the next
 * turn cannot be sent, the box looks closed and says why; what is typed in
 * it meanwhile waits there.
 */
export function TurnBox(props: TurnBoxProps) {
  const { session } = props;
  const [text, setText] = useState("");
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useAnsweringError();
  const [said, setSaid] = useState<Said[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const slow = useDelayed(busy !== null, 300);
  const working = session.state === "running" || session.state === "waiting" ||
    session.state === "ordered";
  const signIn = session.waitingFor?.kind === "sign-in" ? session.waitingFor : null;
  const waits = session.pending?.length ?? 0;
  // Sync keeps what is sent while the agent is raised; an order not started yet is not raised.
  const raising = props.starting && session.state === "running";
  const canContinue = session.state === "interrupted" || session.state === "failed" ||
    signIn !== null;
  const canSend = canContinue || raising || session.state === "ended";
  const reason = reasonOf(session, props.starting);
  const ways = signIn?.ways ?? [];
  const lead = signIn
    ? (ways.length > 0 ? signInLead(signIn.text, session.agent) : signIn.text)
    : null;

  // While Sync does not answer, nothing can be sent; what is typed waits in the box.
  const off = !connected.value;
  const act = async (action: Action) => {
    if (busy || off) return;
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
        // A failed agent is raised again, as one starting is still raised: the message waits for it.
        setSaid([promptSaid(answer.session, raising || session.state === "failed")]);
      } else if (action === "cancel") {
        setSaid([{ text: "Cancelled the turn.", when: (s) => s.state === answer.session.state }]);
      } else {
        // Raising the agent again runs on after the answer; the turn can be typed once it ended.
        setSaid([
          {
            text: waits > 0
              ? `Raising the agent again; it gets the ${
                messagesWords(waits)
              } kept above once it is up…`
              : "Raising the agent again…",
            when: (s) => s.state === "running",
          },
          {
            text: "Continued: the agent has the conversation again. Type the next turn.",
            when: (s) => s.state === "ended",
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
      {session.state === "interrupted" && <p class="turn-notice">{interruptedNotice(session)}</p>}
      {session.state === "failed" && <p class="turn-notice">{failedNotice(session)}</p>}
      {signIn && (
        <section class="turn-notice sign-in" aria-labelledby="sign-in-heading">
          <h3 id="sign-in-heading" class="sign-in-heading">Sign in to {session.agent} to go on</h3>
          {lead &&
            lead.split(/\n\s*\n/).map((paragraph, index) => (
              <p key={index} class="sign-in-lead">
                <AgentWords text={paragraph} />
              </p>
            ))}
          {ways.length > 0 && (
            <ul class="sign-in-ways">
              {ways.map((way) => (
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
          )}
        </section>
      )}
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
              aria-disabled={busy !== null || off}
              onClick={() => act("cancel")}
            >
              Cancel
            </button>
          )}
          {canContinue && (
            <button
              type="button"
              class="button"
              aria-disabled={busy !== null || off}
              onClick={() => act("continue")}
            >
              {continueWords(session, waits)}
            </button>
          )}
          <button
            type="submit"
            class="button primary"
            aria-disabled={!canSend || busy !== null || off || text.trim() === ""}
          >
            Send
          </button>
        </div>
      </form>
      {error && <p class="error" role="alert">{error}</p>}
      <p class="tertiary turn-said" role="status">
        {slow ? busyWords(busy) : said.find((line) => line.when(session))?.text ?? ""}
      </p>
    </div>
  );
}

/** Continue's label: what pressing it does, for this session. */
function continueWords(session: AgentSession, waits: number): string {
  const sends = waits > 0 ? ` and sends the ${messagesWords(waits)} kept` : "";
  if (session.waitingFor?.kind === "sign-in") {
    return `Continue — starts ${session.agent} again, signed in${sends}`;
  }
  if (session.agentSessionId === null) {
    return session.orderKey !== null
      ? `Continue — starts the agent with its order${sends}`
      : `Continue — starts the agent${sends}`;
  }
  return `Continue — starts the agent again and loads this conversation${sends}`;
}

/** What sending a message did, as the answer left the session; `unready` when the agent was not up. */
function promptSaid(session: AgentSession, unready: boolean): Said {
  const kept = session.pending?.at(-1)?.id;
  const waiting = (s: AgentSession) =>
    kept !== undefined && (s.pending ?? []).some((t) => t.id === kept);
  if (session.state === "waiting") {
    return { text: "Kept: the agent gets it once you sign in and continue.", when: waiting };
  }
  if (unready && kept !== undefined) {
    return { text: "Kept: the agent gets it once it is up.", when: waiting };
  }
  return { text: "Sent. The agent is working on it.", when: (s) => s.state === "running" };
}

/** What an interruption stopped, what the order asked for, and what Continue does now. */
function interruptedNotice(session: AgentSession): string {
  const waits = session.pending?.length ?? 0;
  const stopped = session.agentSessionId === null
    ? "Interrupted: Sync stopped before the agent's session opened."
    : "Interrupted: Sync stopped while the agent was working.";
  const kept = waits > 0 ? `the ${messagesWords(waits)} kept above` : null;
  const does = session.agentSessionId === null && session.orderKey !== null
    ? `Continue starts the agent with its order${kept ? `, then sends ${kept}` : ""}.`
    : kept
    ? `Continue raises the agent again and sends ${kept}.`
    : "Continue raises the agent again; then type the next turn.";
  return `${stopped} ${interruptedWords(session)} ${does}`;
}

/** What Continue and the box do for a session whose agent failed. */
function failedNotice(session: AgentSession): string {
  const waits = session.pending?.length ?? 0;
  if (cancelledBySync(session)) {
    return waits > 0
      ? `Cancelled: Sync stopped the agent. Continue starts it again and sends the ` +
        `${messagesWords(waits)} kept above.`
      : "Cancelled: Sync stopped the agent. Continue starts it again; then type the next turn.";
  }
  return waits > 0
    ? `The agent failed (why is said above). Continue starts the agent again and sends the ` +
      `${
        messagesWords(waits)
      } kept above; a message you send now goes after them, once the agent is up.`
    : "The agent failed (why is said above). Continue starts the agent again; then type the next " +
      "turn. Or send it now: it is sent once the agent is up.";
}

/** What the order asked for after an interruption; whatever it asked, nothing resumes by itself. */
function interruptedWords(session: AgentSession): string {
  if (session.source.kind === "person") return "Nothing resumes by itself.";
  return session.onInterrupted === "continue"
    ? "Its order asked to go on after an interruption (onInterrupted: continue), but nothing resumes by itself."
    : "Its order asked to wait for a person after an interruption (onInterrupted: wait), and nothing resumes by itself.";
}

/** What stands in the way of the next turn, or what becomes of it now; null when nothing does. */
function reasonOf(session: AgentSession, starting: boolean): string | null {
  switch (session.state) {
    case "ordered":
      return "The agent is starting.";
    case "running":
      return starting
        ? "The agent is starting. What you send now is kept, and sent once it is up."
        : "The agent is working on this turn. Wait for it to end, or cancel it.";
    case "waiting":
      return session.waitingFor?.kind === "sign-in"
        ? "What you send now is kept, and sent once you sign in and continue."
        : "The agent waits for your answer above.";
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
