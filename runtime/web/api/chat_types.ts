/**
 * The shapes of Chat's API, for the page to import (type-only): the
 * sessions of a project grouped as Chat shows them, one session with its
 * transcript, and the agent definitions a person can begin a conversation
 * with. Every string an agent or a package gives in them is text, to be
 * shown as text, never as HTML.
 *
 * Routes (all JSON; every state-changing one takes `"project"` in its body):
 * - `GET /api/chat?project=` → {@linkcode ChatListResponse}
 * - `GET /api/chat/sessions/:key?project=` → {@linkcode ChatSessionResponse}
 * - `POST /api/chat/sessions` `{ project, agent, text }` → {@linkcode ChatSessionResponse}: a person
 *   begins a conversation; its first turn starts at once.
 * - `POST /api/chat/sessions/:key/prompt` `{ project, text }` → {@linkcode ChatSessionResponse}: the
 *   next turn, when the session is `ended` (or `interrupted`, which continues it first).
 * - `POST /api/chat/sessions/:key/cancel` `{ project }` → {@linkcode ChatSessionResponse}
 * - `POST /api/chat/sessions/:key/continue` `{ project }` → {@linkcode ChatSessionResponse}: an
 *   `interrupted` or `ended` session is raised again (`session/load` when the agent can, else a new
 *   session seeded with the stored transcript); the person then types the next turn.
 * - `POST /api/chat/sessions/:key/keep` `{ project }` → {@linkcode ChatSessionResponse} with `kept`:
 *   writes the `chat.conversation` record; kept again with nothing new since, it writes nothing
 *   and `kept.written` is false.
 * - `POST /api/chat/sessions/:key/archive` `{ project, archived? }` → {@linkcode ChatSessionResponse}:
 *   archives a conversation that nothing moves (`archived: false` restores it to the list); one that
 *   runs or waits is refused (409): cancel its turn first.
 * - `POST /api/chat/sessions/:key/delete` `{ project }` → {@linkcode ChatDeleteResponse}: deletes a
 *   conversation that nothing moves from the installation (pointer, transcript, messages not sent
 *   yet); a kept `chat.conversation` record stays in the project's memory.
 * - `POST /api/chat/sessions/:key/permission` `{ project, requestId, optionId }` →
 *   {@linkcode ChatSessionResponse}: answers a waiting permission request with one of the agent's
 *   options (`optionId: null` cancels it).
 * - `GET /api/agents` → {@linkcode AgentsResponse}; `POST /api/agents` `{ name, command, args?, env? }`
 *   adds or replaces a definition; `POST /api/agents/:name/env` `{ name, value }` sets one variable
 *   (a sign-in's key; `value: null` removes it), never answered back; `POST /api/agents/:name/remove`
 *   removes one a person added, or the keys kept beside a preset (409 when there is none).
 *
 * Live: the project's event stream (`GET /api/events`) carries `session` facts (a pointer changed;
 * with `deleted: true`, the conversation was deleted and there is nothing to read of it),
 * `transcript` facts (an entry added) and `activity` facts (what the agent is doing, while a turn
 * runs).
 *
 * @module
 */
import type { AgentActivity } from "../../agent_activity.ts";
import type { AgentReadiness } from "../../agents/mod.ts";
import type { AgentSession } from "../../agent_session.ts";
import type { TranscriptEntry } from "../../transcript.ts";

export type {
  AgentSession,
  AgentSessionState,
  AgentSessionWait,
  PendingTurn,
  SignInWay,
} from "../../agent_session.ts";
export type { AgentActivity, AgentActivityPhase } from "../../agent_activity.ts";
export type { AgentReadiness } from "../../agents/mod.ts";
export type {
  FailureEntry,
  MessageEntry,
  PermissionAnswerEntry,
  PermissionChoice,
  PermissionEntry,
  PlanEntry,
  PlanStep,
  StoppedEntry,
  ThoughtEntry,
  ToolCallEntry,
  ToolCallStatus,
  ToolCallUpdateEntry,
  TranscriptEntry,
  TurnEndEntry,
  UserEntry,
} from "../../transcript.ts";

/** One row of Chat's list. */
export interface ChatRow {
  /** The session's key. */
  key: string;
  /** Its title. */
  title: string;
  /** Where it has got to. */
  state: AgentSession["state"];
  /** The agent's name. */
  agent: string;
  /** When it was begun, ISO 8601: rows are ordered by it, newest first. */
  createdAt: string;
  /** When it last changed, ISO 8601. */
  updatedAt: string;
  /** What it waits for while `waiting`: a person's answer to a permission, or a sign-in. */
  waitsFor: "permission" | "sign-in" | null;
  /** True when it is `failed` because a person cancelled it and Sync stopped the agent. */
  cancelled?: boolean;
}

/** A group of Chat's list: the sessions one extension ordered. */
export interface ChatGroup {
  /** The ordering extension's id. */
  extensionId: string;
  /** Its name, the group's heading. */
  name: string;
  /** Its sessions, newest first. */
  rows: ChatRow[];
}

/** `GET /api/chat?project=`. */
export interface ChatListResponse {
  /** The project's resolved folder. */
  project: string;
  /** What no extension ordered (a person's, an agent's), newest first: Chat's first group. */
  conversations: ChatRow[];
  /** One group per ordering extension, the group with the newest session first. */
  groups: ChatGroup[];
  /** The archived sessions, whoever ordered them, newest first: listed apart from the rest. */
  archived: ChatRow[];
}

/** `POST /api/chat/sessions/:key/delete`. */
export interface ChatDeleteResponse {
  /** The conversation deleted. */
  deleted: {
    /** Its key. */
    key: string;
    /** Its title. */
    title: string;
    /** The record it was kept as, which stays in the project's memory; null when never kept. */
    keptAs: string | null;
  };
}

/** One session, whole. */
export interface ChatSessionResponse {
  /** The pointer. */
  session: AgentSession;
  /** Its transcript, oldest first, streamed chunks already joined. */
  transcript: TranscriptEntry[];
  /** Entries left out at the start past the stored bound; 0 when none were. */
  omitted: number;
  /**
   * What the agent is doing while a turn runs (or it is raised): when it was
   * last heard, its stderr tail, npm downloading it; null otherwise.
   */
  activity: AgentActivity | null;
  /** `keep` only: what Keep wrote. */
  kept?: ChatKept;
}

/** What Keep did: the record it names, its revision, and whether this Keep wrote it. */
export interface ChatKept {
  /** The record's key, `chat.conversation/<session key>`. */
  key: string;
  /** Its kind, `chat.conversation`. */
  kind: string;
  /** Its id within the kind: the session's key. */
  id: string;
  /** Its revision after this Keep. */
  revision: number;
  /** True when this Keep wrote a new revision; false when nothing had changed since the last. */
  written: boolean;
}

/** An agent a session can be begun with. */
export interface AgentDefinitionView {
  /** Its name, such as `claude-code`. */
  name: string;
  /** The program run. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** The names of the extra environment variables it is given (never their values). */
  envNames: string[];
  /** `preset`: one Sync knows (never installed by Sync); `added`: a person added or replaced it; `bundled`: the demo agent. */
  origin: "preset" | "added" | "bundled";
  /** One line on what it is and what it needs (a program to install, a key), for the settings view. */
  about: string;
  /** Whether it can be begun with now, as far as Sync can tell without starting it; why not, and what to do. */
  readiness: AgentReadiness;
}

/** `GET /api/agents`. */
export interface AgentsResponse {
  /** Every agent, by name. */
  agents: AgentDefinitionView[];
  /**
   * `POST /api/agents/:name/remove` only: what it removed — a person's
   * definition, or the variables (keys) kept beside a preset, by name.
   */
  removed?: { definition: boolean; envNames: string[] };
}
