import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { AgentActivity } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode ActivityLine}. */
export interface ActivityLineProps {
  /** What the agent is doing, as the session's view and its `activity` facts tell it. */
  activity: AgentActivity;
  /** The agent's name. */
  agent: string;
}

/**
 * A small line under the running turn: what the agent is doing and how
 * long since it was last heard from (counted here each second), and its
 * stderr tail under a disclosure, as text. Only the phase is announced
 * (politely, when it changes): the seconds and the output are there to be
 * read, not spoken every second.
 */
export function ActivityLine(props: ActivityLineProps) {
  const { activity, agent } = props;
  const now = useSecond();
  const heard = activity.lastHeardAt === null ? null : Date.parse(activity.lastHeardAt);
  // The output is a tail: it stays scrolled to its end unless the person scrolled up to read.
  const output = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const pre = output.current;
    if (pre && atEnd.current) pre.scrollTop = pre.scrollHeight;
  }, [activity.stderrTail]);
  return (
    <section class="activity" aria-label="What the agent is doing">
      <p class="activity-line">
        <span class="activity-phase" role="status">{phaseWords(activity, agent)}</span>
        <span class="activity-heard secondary">
          {heard === null
            ? ` — nothing heard from ${agent} yet (${duration(now - Date.parse(activity.since))})`
            : ` — last heard from ${agent} ${duration(now - heard)} ago`}
        </span>
      </p>
      {activity.stderrTail.trim() !== "" && (
        <details
          class="activity-output"
          onToggle={() => {
            const pre = output.current;
            if (pre && atEnd.current) pre.scrollTop = pre.scrollHeight;
          }}
        >
          <summary>Agent output</summary>
          <pre
            class="chat-pre"
            tabIndex={0}
            ref={output}
            onScroll={(event) => {
              const pre = event.currentTarget;
              atEnd.current = pre.scrollHeight - pre.scrollTop - pre.clientHeight <= 16;
            }}
            aria-label={`The end of what ${agent} wrote on stderr`}
          >
            {activity.stderrTail}
          </pre>
        </details>
      )}
    </section>
  );
}

/** What the agent is doing, in words. */
function phaseWords(activity: AgentActivity, agent: string): string {
  if (activity.phase === "working") return "Working";
  if (activity.phase === "starting") return `Starting ${agent}`;
  const what = activity.download?.package ?? `${agent}'s package`;
  const how = activity.download?.tool === "npx" ? "npx" : "npm";
  return `Downloading ${what} with ${how} (first use)…`;
}

/** A duration in words: `4 s`, `3 min 5 s`, `2 h 10 min`. */
function duration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
  }
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** The time now, moving on each second while the component is shown. */
function useSecond(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
