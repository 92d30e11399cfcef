import { useLayoutEffect, useRef } from "preact/hooks";
import type { AgentSession, ChatSessionResponse } from "../../runtime/web/api/chat_types.ts";
import { AgentMessage } from "./agent_message.tsx";
import { FailureView } from "./failure_view.tsx";
import { PermissionPrompt } from "./permission_prompt.tsx";
import { PlanView } from "./plan_view.tsx";
import { ThoughtView } from "./thought_view.tsx";
import { ToolCallView } from "./tool_call_view.tsx";
import type { TranscriptItem } from "./transcript_items.ts";
import { TurnEndView } from "./turn_end_view.tsx";
import { UserTurn } from "./user_turn.tsx";

/** Props of {@linkcode TranscriptView}. */
export interface TranscriptViewProps {
  /** What is drawn, oldest first. */
  items: TranscriptItem[];
  /** Entries left out at the start past the stored bound. */
  omitted: number;
  /** The session's pointer. */
  session: AgentSession;
  /** The project folder, as the address gives it. */
  project: string;
  /** Told the session as an answered permission left it. */
  onSession: (answer: ChatSessionResponse) => void;
  /** The window's live stream is open. */
  live: boolean;
  /** The agent is being raised: it has not begun a turn yet. */
  starting: boolean;
}

/** How near the bottom, in pixels, still counts as at the bottom. */
const BOTTOM_SLACK = 32;

/**
 * The transcript: a log region that new entries append to at the bottom.
 * It stays scrolled to the bottom while the person is there, and leaves
 * them where they are when they have scrolled up to read.
 */
export function TranscriptView(props: TranscriptViewProps) {
  const { session } = props;
  const ref = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  useLayoutEffect(() => {
    const log = ref.current;
    if (log && atBottom.current) log.scrollTop = log.scrollHeight;
  });
  const over = session.state !== "running" && session.state !== "waiting" &&
    session.state !== "ordered";
  const waitingFor = session.waitingFor?.kind === "permission"
    ? session.waitingFor.requestId
    : null;
  return (
    <div
      ref={ref}
      class="transcript"
      role="log"
      aria-live="polite"
      aria-label="Transcript"
      tabIndex={0}
      onScroll={(event) => {
        const log = event.currentTarget;
        atBottom.current = log.scrollHeight - log.scrollTop - log.clientHeight <= BOTTOM_SLACK;
      }}
    >
      {props.omitted > 0 && (
        <p class="tertiary transcript-omitted">
          {props.omitted} earlier {props.omitted === 1 ? "entry is" : "entries are"}{" "}
          past what Sync keeps, and not shown.
        </p>
      )}
      {props.items.length === 0 && (
        <p class="tertiary transcript-omitted">{emptyWords(session, props.starting)}</p>
      )}
      {props.items.map((item, index) => {
        switch (item.kind) {
          case "user": {
            const ordered = index === 0 && props.omitted === 0 && session.source.kind !== "person";
            return (
              <UserTurn
                key={item.key}
                entry={item.entry}
                who={ordered ? "The order" : "You"}
                folded={ordered}
              />
            );
          }
          case "message":
            return <AgentMessage key={item.key} entry={item.entry} agent={session.agent} />;
          case "thought":
            return <ThoughtView key={item.key} entry={item.entry} />;
          case "tool_call":
            return <ToolCallView key={item.key} call={item.call} />;
          case "plan":
            return <PlanView key={item.key} plan={item.plan} />;
          case "permission":
            return (
              <PermissionPrompt
                key={item.key}
                request={item.request}
                answer={item.answer}
                active={waitingFor === item.request.requestId}
                over={over}
                sessionKey={session.key}
                project={props.project}
                onAnswered={props.onSession}
                live={props.live}
              />
            );
          case "turn_end":
          case "stopped":
            return <TurnEndView key={item.key} entry={item.entry} />;
          case "failure":
            return <FailureView key={item.key} entry={item.entry} />;
        }
      })}
    </div>
  );
}

/** What an empty transcript says, as the session stands and with what waits to be sent. */
function emptyWords(session: AgentSession, starting: boolean): string {
  const waits = session.pending?.length ?? 0;
  const signIn = session.state === "waiting" && session.waitingFor?.kind === "sign-in";
  const these = waits === 1 ? "your message below is" : "your messages below are";
  if (signIn) {
    return waits > 0
      ? `Nothing sent to ${session.agent} yet: it waits for you to sign in (below); ${these} ` +
        "kept until then."
      : `Nothing yet: the agent ${session.agent} waits for you to sign in (below).`;
  }
  if (starting && (session.state === "running" || session.state === "ordered")) {
    return waits > 0
      ? `Nothing yet: the agent is starting; ${these} sent once it is up.`
      : "Nothing yet: the agent is starting.";
  }
  if (session.state === "running") return "Nothing yet: the agent is working.";
  if (waits > 0) {
    return `Nothing sent to ${session.agent} yet: ${these} kept, to be sent once its session opens.`;
  }
  return "Nothing was said in this conversation.";
}
