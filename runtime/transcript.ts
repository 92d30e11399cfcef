/**
 * The transcript of an agent session: what Chat renders and what the host
 * stores, one entry per thing that happened. Every text in an entry is
 * bounded (`AGENT_LIMITS.maxEntryChars` in `agents/`) and is the agent's text
 * as it sent it, to be rendered as text, never as markup.
 *
 * These shapes are declared here, below every domain, because they travel
 * beyond the agents that make them: in the facts the event stream carries
 * (`sync_event.ts`) and in the answers of the web API.
 *
 * @module
 */

/** What every entry carries. */
export interface EntryBase {
  /** When the session saw it, as an ISO 8601 time. */
  at: string;
  /** True when it came from the agent replaying a loaded session (`session/load`). */
  replay?: boolean;
}

/** What the person (or the ordering source) said: a turn's prompt, or a replayed one. */
export interface UserEntry extends EntryBase {
  /** `"user"`. */
  kind: "user";
  /** The prompt's text. */
  text: string;
}

/** A piece of the agent's reply (`agent_message_chunk`), or several joined. */
export interface MessageEntry extends EntryBase {
  /** `"message"`. */
  kind: "message";
  /** The reply's text; images and other content are named in brackets, such as `[image]`. */
  text: string;
  /** The agent's id of the message, when it gives one; chunks join only within one message. */
  messageId?: string;
}

/** A piece of the agent's reasoning (`agent_thought_chunk`), or several joined. */
export interface ThoughtEntry extends EntryBase {
  /** `"thought"`. */
  kind: "thought";
  /** The thought's text. */
  text: string;
  /** The agent's id of the message, when it gives one. */
  messageId?: string;
}

/**
 * How far a tool call is: ACP's four statuses, and Sync's own `cancelled`
 * for a call a person's cancel stopped before it finished.
 */
export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed" | "cancelled";

/** A tool call the agent started (`tool_call`). Later {@linkcode ToolCallUpdateEntry}s change it. */
export interface ToolCallEntry extends EntryBase {
  /** `"tool_call"`. */
  kind: "tool_call";
  /** The agent's id of the call; its updates name the same id. */
  toolCallId: string;
  /** What the call does, in the agent's words. */
  title: string;
  /** The agent's kind of tool: `read`, `edit`, `execute`, `fetch`, … */
  toolKind?: string;
  /** How far it is; `pending` when the agent does not say. */
  status: ToolCallStatus;
  /** What the call produced or shows, as text (content, an edit's new text, a terminal's id). */
  text?: string;
  /** Files the call touches, absolute paths. */
  paths?: string[];
}

/** A change to a tool call (`tool_call_update`): only the fields the agent changed. */
export interface ToolCallUpdateEntry extends EntryBase {
  /** `"tool_call_update"`. */
  kind: "tool_call_update";
  /** The call it changes. */
  toolCallId: string;
  /** A new title. */
  title?: string;
  /** A new kind of tool. */
  toolKind?: string;
  /** A new status. */
  status?: ToolCallStatus;
  /** New content, replacing the call's. */
  text?: string;
  /** New paths, replacing the call's. */
  paths?: string[];
}

/** One step of a plan. */
export interface PlanStep {
  /** What the step is, in the agent's words. */
  content: string;
  /** `high`, `medium` or `low`. */
  priority: string;
  /** `pending`, `in_progress` or `completed`; `cancelled` when a person's cancel stopped it. */
  status: string;
}

/** The agent's plan, whole: each plan replaces the one before. */
export interface PlanEntry extends EntryBase {
  /** `"plan"`. */
  kind: "plan";
  /** Its steps, at most `AGENT_LIMITS.maxPlanEntries`. */
  steps: PlanStep[];
  /** Steps left out past the limit. */
  omitted?: number;
}

/** One of the answers an agent offers to a permission request. */
export interface PermissionChoice {
  /** The id the answer sends back. */
  optionId: string;
  /** Its label, in the agent's words. */
  name: string;
  /** `allow_once`, `allow_always`, `reject_once` or `reject_always`. */
  optionKind: string;
}

/** The agent asked a person's permission (`session/request_permission`). */
export interface PermissionEntry extends EntryBase {
  /** `"permission"`. */
  kind: "permission";
  /** Names this request; its {@linkcode PermissionAnswerEntry} names the same. */
  requestId: string;
  /** The tool call it is about. */
  toolCallId: string;
  /** What the agent wants to do. */
  title: string;
  /** The agent's own options, in its order. */
  options: PermissionChoice[];
}

/** How a permission request was answered. */
export interface PermissionAnswerEntry extends EntryBase {
  /** `"permission_answer"`. */
  kind: "permission_answer";
  /** The request answered. */
  requestId: string;
  /** `selected` with the option chosen, or `cancelled` (the turn was cancelled). */
  outcome: "selected" | "cancelled";
  /** The option chosen, when selected. */
  optionId?: string;
}

/** Why a turn ended, in ACP's words. */
export type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

/** A turn ended: the agent answered the prompt. */
export interface TurnEndEntry extends EntryBase {
  /** `"turn_end"`. */
  kind: "turn_end";
  /** `end_turn`, `cancelled`, `refusal`, … */
  stopReason: StopReason;
}

/** A turn, or the session, failed. */
export interface FailureEntry extends EntryBase {
  /** `"failure"`. */
  kind: "failure";
  /** What failed and why, as the error said. */
  message: string;
  /** The last of the agent's stderr, when there was any. */
  stderrTail?: string;
  /**
   * True when it failed because a person cancelled it and Sync stopped the
   * agent: what the person asked for, not the agent going wrong.
   */
  cancelled?: boolean;
}

/**
 * A turn Sync stopped because Sync itself was stopping (`sync serve` ended by
 * Ctrl-C or SIGTERM): neither the agent's failure nor its end of the turn.
 */
export interface StoppedEntry extends EntryBase {
  /** `"stopped"`. */
  kind: "stopped";
}

/** One entry of a transcript. */
export type TranscriptEntry =
  | UserEntry
  | MessageEntry
  | ThoughtEntry
  | ToolCallEntry
  | ToolCallUpdateEntry
  | PlanEntry
  | PermissionEntry
  | PermissionAnswerEntry
  | TurnEndEntry
  | FailureEntry
  | StoppedEntry;
