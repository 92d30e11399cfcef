/**
 * The work performer: what makes work happen. It takes new `agent.session`
 * orders from the projects' outboxes — when a handler call that may have
 * ordered some leaves its receipt, and for every known project when it
 * starts — and performs each once: it begins the session's pointer (an
 * atomic write that fails when another process began it first), raises the
 * agent in the project folder, and sends the order's prompt. A person begins
 * conversations, answers permissions, cancels, continues and keeps through
 * it too (the web app's Chat API).
 *
 * The three layers (seed 000 §6): the live session is in this object, for
 * this run only; the pointer and the bounded transcript are in the
 * installation (`session_store.ts`, `transcript_store.ts`); the record is
 * written only when a person keeps the conversation. Every change of a
 * pointer is told as a `session` fact and every transcript entry as a
 * `transcript` fact on the host's bus.
 *
 * Nothing resumes alone: at start, sessions that were running or waiting
 * when Sync stopped become `interrupted`, with the order's `onInterrupted`
 * shown; only a person continues them.
 *
 * @module
 */
import {
  type AgentSession,
  type AgentSessionState,
  orderingExtension,
  type PendingTurn,
} from "../agent_session.ts";
import type { AgentActivity } from "../agent_activity.ts";
import type { EventBus } from "../event_bus.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { cutText } from "../internal/cut_text.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import { SESSION_LIMITS, type SessionLimits } from "../limits.ts";
import { projectsPrefix } from "../projects/mod.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { listWorkOrders, readWorkOrder, type WorkOrder } from "../work/mod.ts";
import {
  type AgentFacts,
  type McpServer,
  type PermissionAnswer,
  type PermissionRequest,
  startAcpSession,
} from "./acp_session.ts";
import { ActivityTracker, watchedPeer } from "./activity_tracker.ts";
import { listAgents, type ListedAgent, readAgent } from "./agent_definitions.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { AgentFailedError, AgentSignInRequiredError } from "./agent_errors.ts";
import type { AgentPeer } from "./agent_peer.ts";
import { type NpmRunner, npmRunner, withFetchLog } from "./npm_fetch.ts";
import { orderPrompt } from "./order_prompt.ts";
import {
  createSession,
  listSessions,
  readSession,
  sessionsThatExist,
  updateSession,
} from "./session_store.ts";
import { type AgentCommand, spawnAgent } from "./spawn_agent.ts";
import { readTranscript, type StoredTranscript, TranscriptWriter } from "./transcript_store.ts";
import { transcriptText } from "./transcript_text.ts";
import { type ConversationKept, keepConversation, writeConversation } from "./keep_conversation.ts";
import { isActive, liveKey, LiveSession, missingProgram, reason, tailOf } from "./_live_session.ts";
import { forgetPendingTurn, keepPendingTurn, readPendingTurn } from "./pending_turns.ts";
import { archiveSession, checkStopped, deleteSession } from "./session_removal.ts";

/**
 * Starts an agent's program in the project folder: the seam where the
 * process supervisor takes over from {@linkcode spawnAgent}.
 *
 * @throws {Deno.errors.NotFound} (or an error naming the program) when the program is missing.
 */
export type AgentLauncher = (
  command: AgentCommand,
  options: { cwd: string; owner: string; onStderr?: (text: string) => void },
) => Promise<AgentPeer>;

/** What a session is offered of MCP, and how to end what was issued for it. */
export interface McpOffer {
  /** The servers, as ACP spells them. */
  servers: McpServer[];
  /** Called once the agent's process has ended: a token issued for the session dies with it. */
  release?: () => Promise<void>;
}

/**
 * The MCP servers a session is offered (`session/new`, `session/load`),
 * given what the agent takes (`agent.mcpHttp`): where `serve` offers
 * sync-mcp. None unless given.
 */
export type McpServersFor = (session: AgentSession, agent: AgentFacts) => Promise<McpOffer>;

/** Options for a {@linkcode WorkPerformer}. */
export interface WorkPerformerOptions {
  /** The installation's KV: agents, pointers, transcripts. */
  kv: Deno.Kv;
  /** The host's bus: receipts are heard on it, sessions and transcripts told on it. */
  events: EventBus;
  /** A project's memory (its outbox, and where a kept conversation is written). */
  projectMemory: (project: string) => Promise<Deno.Kv>;
  /** The host's clock, in ms. */
  now?: () => number;
  /** Where notices go (a session that could not be written, say). */
  log?: (line: string) => void;
  /** Starts an agent's program; {@linkcode spawnAgent} unless given. */
  launch?: AgentLauncher;
  /** The MCP servers a session is offered; none unless given. */
  mcpServersFor?: McpServersFor;
  /** How long an agent may take to answer `initialize`. */
  initializeTimeoutMs?: number;
  /** How long an agent may take to answer `session/new` or `session/load`. */
  sessionTimeoutMs?: number;
  /** How long a cancelled turn may go on before the agent's process is stopped. */
  cancelGraceMs?: number;
  /** The bounds of what is kept of a session. */
  limits?: SessionLimits;
  /**
   * True when Sync's own environment, which agents inherit, sets a variable
   * (not empty): with an agent's definition, what tells whether Sync can
   * sign in to it itself. Sync's environment when not given.
   */
  envHas?: (name: string) => boolean;
}

/** One session, whole: its pointer and its transcript. */
export interface SessionView {
  /** The pointer. */
  session: AgentSession;
  /** The transcript, oldest first, chunks joined. */
  transcript: TranscriptEntry[];
  /** Entries dropped from the start past the bound. */
  omitted: number;
  /** What the agent is doing, while a turn runs or the agent is raised; null otherwise. */
  activity: AgentActivity | null;
}

/** Changes a pointer may be given. */
type PointerChange = Partial<
  Pick<
    AgentSession,
    | "state"
    | "waitingFor"
    | "error"
    | "agentSessionId"
    | "keptAs"
    | "title"
    | "pending"
    | "archivedAt"
  >
>;

/**
 * How long after an order's key is made its call may still be committing it
 * (a handler call's longest run, with room to spare). A scan of a project's
 * outbox moves past the orders older than this that have their sessions, so
 * that the next reads only what came after them.
 */
const ORDERS_SETTLE_MS = 10 * 60_000;

/** Performs work orders and a person's conversations; one per process that serves. */
export class WorkPerformer {
  #kv: Deno.Kv;
  #events: EventBus;
  #projectMemory: (project: string) => Promise<Deno.Kv>;
  #now: () => number;
  #log: (line: string) => void;
  #launch: AgentLauncher;
  #mcpServersFor: McpServersFor;
  #initializeTimeoutMs: number | undefined;
  #sessionTimeoutMs: number | undefined;
  #cancelGraceMs: number | undefined;
  #limits: SessionLimits;
  #envHas: (name: string) => boolean;
  #live = new Map<string, LiveSession>();
  #scans = new Map<string, Promise<void>>();
  /**
   * Per project, the key of an order such that it and every order before it
   * has its session (or is not one a session performs), and is older than
   * {@linkcode ORDERS_SETTLE_MS}: scans list only the orders after it.
   */
  #scanned = new Map<string, string>();
  #tasks = new Set<Promise<unknown>>();
  #stopping = false;
  #started = false;
  #listening: Promise<void> | null = null;
  #subscription: ReturnType<EventBus["subscribe"]> | null = null;

  /**
   * A performer over an installation; nothing happens before {@linkcode WorkPerformer.start}.
   *
   * @param options The installation, the bus, project memories, and what tests replace.
   */
  constructor(options: WorkPerformerOptions) {
    this.#kv = options.kv;
    this.#events = options.events;
    this.#projectMemory = options.projectMemory;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#launch = options.launch ??
      ((command, { cwd, onStderr }) => Promise.resolve(spawnAgent(command, { cwd, onStderr })));
    this.#mcpServersFor = options.mcpServersFor ?? (() => Promise.resolve({ servers: [] }));
    this.#initializeTimeoutMs = options.initializeTimeoutMs;
    this.#sessionTimeoutMs = options.sessionTimeoutMs;
    this.#cancelGraceMs = options.cancelGraceMs;
    this.#limits = options.limits ?? SESSION_LIMITS;
    this.#envHas = options.envHas ?? hostEnvHas;
  }

  /**
   * Marks the sessions a stopped Sync left running or waiting as
   * `interrupted`, then listens for receipts and performs the orders waiting
   * in every known project's outbox.
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const session of await listSessions(this.#kv)) {
      if (!isActive(session.state)) continue;
      await this.#interrupt(session.project, session.key, session.state);
    }
    // Only receipts are listened for (and `resync`, which comes whatever the kinds): the
    // performer's own transcript facts, large and many, are not held for it.
    this.#subscription = this.#events.subscribe({ types: new Set(["receipt"]) });
    this.#listening = this.#listen();
    for await (const entry of this.#kv.list<{ path: string }>({ prefix: projectsPrefix() })) {
      this.scan(entry.value.path);
    }
  }

  /**
   * Stops every session: agents are stopped, transcripts written, and
   * sessions that were running or waiting become `interrupted`. Resolves
   * when every agent process has ended.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#subscription?.close();
    await this.#listening;
    await Promise.allSettled(this.#scans.values());
    await Promise.allSettled([...this.#live.values()].map(async (live) => {
      clearTimeout(live.idle);
      for (const resolve of live.asking.values()) resolve("cancelled");
      live.activity?.rest();
      // An agent still being raised has no session to close yet: its process is stopped.
      await live.peer?.stop().catch(() => {});
      const acp = live.acp;
      await acp?.close().catch(() => {});
      // Its exit's own steps (the release of its sync-mcp token) run first.
      await acp?.exited.catch(() => {});
      live.acp = null;
    }));
    await Promise.allSettled([...this.#tasks]);
    for (const live of this.#live.values()) {
      await live.writer.flush();
      await live.writes.catch(() => {});
      if (isActive(live.pointer.state)) {
        await this.#interrupt(live.pointer.project, live.pointer.key, live.pointer.state);
      }
    }
    this.#live.clear();
  }

  /**
   * Performs the orders in a project's outbox that nothing began yet. Scans
   * of one project run one after the other.
   *
   * @param project The project's resolved folder.
   * @returns When the scan is done (the sessions it began go on).
   */
  scan(project: string): Promise<void> {
    const before = this.#scans.get(project) ?? Promise.resolve();
    const next = before.then(() => this.#scan(project)).catch((error) => {
      this.#log(
        `Could not look for work ordered in ${project}: ${describeError(error).message}`,
      );
    });
    this.#scans.set(project, next);
    next.then(() => {
      if (this.#scans.get(project) === next) this.#scans.delete(project);
    });
    return next;
  }

  /**
   * Every agent a session can be begun with.
   *
   * @returns The agents, by name.
   */
  agents(): Promise<ListedAgent[]> {
    return listAgents(this.#kv);
  }

  /**
   * The sessions of a project, as their pointers stand.
   *
   * @param project The project's resolved folder.
   */
  list(project: string): Promise<AgentSession[]> {
    return listSessions(this.#kv, project);
  }

  /**
   * One session with its transcript: the live one's as it stands, else the stored one.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @throws {NotFoundError} when there is no such session.
   */
  async view(project: string, key: string): Promise<SessionView> {
    const live = this.#live.get(liveKey(project, key));
    if (live) {
      const { entries, omitted } = live.writer.transcript;
      const activity = live.working ? live.activity?.snapshot() ?? null : null;
      return { session: live.pointer, transcript: entries, omitted, activity };
    }
    const session = await this.#pointer(project, key);
    const stored = await readTranscript(this.#kv, project, key);
    return { session, transcript: stored.entries, omitted: stored.omitted, activity: null };
  }

  /**
   * A person begins a conversation in the project with an agent; its first
   * turn starts at once.
   *
   * @param project The project's resolved folder.
   * @param agent The agent's name.
   * @param text The first turn.
   * @returns The new session, `running`.
   * @throws {NotFoundError} when there is no agent by that name.
   * @throws {InvalidInputError} when the text is empty or too long.
   */
  async begin(project: string, agent: string, text: string): Promise<SessionView> {
    this.#checkTurn(text);
    if (!(await readAgent(this.#kv, agent))) {
      const names = (await listAgents(this.#kv)).map((a) => a.name).join(", ");
      throw new NotFoundError(`There is no agent named ${agent}; the agents are: ${names}`);
    }
    const now = new Date(this.#now()).toISOString();
    const firstLine = text.trim().split("\n")[0];
    const title = firstLine.length <= this.#limits.maxTitleChars
      ? firstLine
      : `${firstLine.slice(0, this.#limits.maxTitleChars - 1)}…`;
    const key = `chat-${newId(this.#now())}`;
    // The first message is kept before anything else: whatever the agent does, it is not lost.
    const first = await keepPendingTurn(this.#kv, project, key, {
      id: newId(this.#now()),
      at: now,
    }, text);
    const pointer: AgentSession = {
      key,
      project,
      agent,
      agentSessionId: null,
      orderKey: null,
      extensionId: null,
      extensionName: null,
      source: { kind: "person" },
      title,
      state: "running",
      waitingFor: null,
      onInterrupted: "wait",
      createdAt: now,
      updatedAt: now,
      error: null,
      keptAs: null,
      pending: [first],
    };
    if (!await createSession(this.#kv, pointer)) {
      await forgetPendingTurn(this.#kv, project, key, first.id);
      throw new ConflictError(`A session ${pointer.key} exists already; try again`);
    }
    this.#tell(pointer);
    const live = this.#makeLive(pointer, { entries: [], omitted: 0 });
    this.#work(live, async () => {
      await this.#raise(live, "new");
      await this.#drain(live);
    });
    return this.view(project, pointer.key);
  }

  /**
   * The person's next turn, in a session that is `ended` (or `interrupted`
   * or `failed`, which is continued first).
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @param text What the person says.
   * @returns The session, `running`; or still `waiting` for a sign-in, the
   *   message kept (`pending`) to be sent once the agent's session opens.
   *   A message sent while the agent is being raised is kept the same way.
   * @throws {ConflictError} while a turn is under way or a permission waits
   *   (the agent is busy, not unready: it would not be sent for a while), or
   *   when `AGENT_LIMITS.maxPendingTurns` messages wait already.
   */
  async prompt(project: string, key: string, text: string): Promise<SessionView> {
    this.#checkTurn(text);
    await this.#holding(project, key, async (live) => {
      // One message at a time per session: the state each decides on, and the count of
      // messages waiting it checks, are those the one before it left written.
      const taken = live.prompting.then(() => this.#take(live, text));
      live.prompting = taken.catch(() => {});
      await taken;
    });
    return this.view(project, key);
  }

  /** A person's message, decided on once the one before it is. */
  async #take(live: LiveSession, text: string): Promise<void> {
    const { state, waitingFor, key } = live.pointer;
    const signIn = state === "waiting" && waitingFor?.kind === "sign-in";
    // Until the agent's session is open, a message waits for it rather than being refused.
    const raising = live.working && (live.acp === null || live.opening);
    if ((state === "running" && !raising) || (state === "waiting" && !signIn)) {
      throw new ConflictError(
        `The session ${key} is ${state}: wait for its turn to end (or cancel it) before the next`,
      );
    }
    await this.#queue(live, text);
    // Waiting for a sign-in, it is sent after Continue; work under way that still looks sends it.
    if (signIn || live.accepting) return;
    live.working = true;
    // Going on with an archived conversation brings it back to Chat's list.
    await this.#change(live, { state: "running", waitingFor: null, error: null, archivedAt: null });
    this.#work(live, async () => {
      if (live.acp === null) await this.#raise(live, "resume");
      await this.#drain(live);
    });
  }

  /**
   * Keeps a person's message, whole, to be sent once the agent's session
   * opens; a message that cannot be kept is refused, never answered as kept.
   */
  async #queue(live: LiveSession, text: string): Promise<void> {
    const { project, key } = live.pointer;
    if ((live.pointer.pending?.length ?? 0) >= AGENT_LIMITS.maxPendingTurns) {
      throw new ConflictError(
        `The session ${key} has ${AGENT_LIMITS.maxPendingTurns} messages waiting to be sent ` +
          `already: continue it (or sign in) so the agent gets them, then send more`,
      );
    }
    const at = new Date(this.#now()).toISOString();
    const turn = await keepPendingTurn(
      this.#kv,
      project,
      key,
      { id: newId(this.#now()), at },
      text,
    );
    // Whether the pointer took it, not whether it still lists it: it may be sent by now.
    if (!await this.#change(live, (s) => ({ pending: [...(s.pending ?? []), turn] }))) {
      await forgetPendingTurn(this.#kv, project, key, turn.id).catch(() => {});
      throw new ConflictError(
        `Your message to the session ${key} could not be kept: Sync could not write the ` +
          `session's state. It was not sent; send it again once the session shows why`,
      );
    }
  }

  /**
   * Sends the pending turns, oldest first, one turn each, while the agent's
   * session is open; stops when a turn does not end (`ended`) or when none
   * is left. A session with nothing pending ends.
   */
  async #drain(live: LiveSession): Promise<void> {
    for (;;) {
      const next: PendingTurn | undefined = live.pointer.pending?.[0];
      if (next === undefined) {
        // Decided together with looking: a message queued from now on needs work of its own.
        live.accepting = false;
        if (live.pointer.state !== "ended") {
          await this.#change(live, { state: "ended", waitingFor: null });
        }
        return;
      }
      const { project, key } = live.pointer;
      const text = await readPendingTurn(this.#kv, project, key, next.id) ?? next.text;
      await this.#turn(live, text, next.id);
      // A turn cancelled before it was sent leaves its message pending: nothing more is sent.
      const unsent = live.pointer.pending?.[0]?.id === next.id;
      if (unsent || live.pointer.state !== "ended" || this.#stopping) return;
    }
  }

  /** A pending turn was sent: it leaves the pointer and the store. */
  async #sent(live: LiveSession, id: string): Promise<void> {
    await this.#change(live, (s) => ({ pending: (s.pending ?? []).filter((t) => t.id !== id) }));
    await forgetPendingTurn(this.#kv, live.pointer.project, live.pointer.key, id);
  }

  /**
   * Cancels the turn under way (`session/cancel`); a waiting permission is
   * answered `cancelled`. An agent that does not end its turn within
   * `AGENT_LIMITS.cancelGraceMs`, or that is still being raised (no session
   * of its own yet), is stopped, and the session fails saying so. A session
   * waiting for a sign-in stops waiting and ends.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @throws {ConflictError} when nothing is under way.
   */
  async cancel(project: string, key: string): Promise<SessionView> {
    const live = this.#live.get(liveKey(project, key));
    const session = live?.pointer ?? await this.#pointer(project, key);
    const signIn = session.state === "waiting" && session.waitingFor?.kind === "sign-in";
    if (live?.working && !signIn) {
      live.cancelled = true;
      for (const resolve of live.asking.values()) resolve("cancelled");
      // An agent still starting (before initialize is answered) has nothing to cancel: it is
      // stopped, and its start fails saying it was cancelled.
      if (live.acp === null) {
        live.raising?.abort();
        await live.peer?.stop();
      } else {
        await live.acp.cancel();
      }
      return this.view(project, key);
    }
    if (signIn) {
      const stopped = live ?? this.#makeLive(session, await this.#stored(project, key));
      await this.#change(stopped, { state: "ended", waitingFor: null });
      const view = await this.view(project, key);
      this.#idle(stopped);
      return view;
    }
    throw new ConflictError(`The session ${key} is ${session.state}: there is no turn to cancel`);
  }

  /**
   * Raises the agent of a session that is not live again: `session/load`
   * when the agent can, else a new session whose next turn carries the
   * stored transcript. A session that never got as far as the agent's own
   * session (it failed to start, or waited for a sign-in) starts now, with
   * its order's prompt. Then the person types the next turn.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @returns The session, `running` while the agent is raised, then `ended`.
   * @throws {ConflictError} while it runs or waits for a permission.
   */
  continue(project: string, key: string): Promise<SessionView> {
    return this.#holding(project, key, (live) => this.#continue(live));
  }

  /** {@linkcode WorkPerformer.continue}, the session held live. */
  async #continue(live: LiveSession): Promise<SessionView> {
    const { project, key } = live.pointer;
    const { state, waitingFor } = live.pointer;
    if (state === "running" || (state === "waiting" && waitingFor?.kind !== "sign-in")) {
      throw new ConflictError(`The session ${key} is ${state}: there is nothing to continue`);
    }
    const pending = (live.pointer.pending?.length ?? 0) > 0;
    if (live.acp !== null && state === "ended" && !pending) return this.view(project, key);
    live.working = true;
    await this.#change(live, { state: "running", waitingFor: null, error: null, archivedAt: null });
    this.#work(live, async () => {
      const order = live.pointer.agentSessionId === null && live.pointer.orderKey !== null
        ? await readWorkOrder(await this.#projectMemory(project), live.pointer.orderKey)
        : null;
      if (order) {
        if (live.acp === null) await this.#raise(live, "new");
        await this.#turn(live, await orderPrompt(this.#kv, order));
        if (live.pointer.state !== "ended") return;
      } else if (live.acp === null) {
        await this.#raise(live, live.pointer.agentSessionId === null ? "new" : "resume");
      }
      // What the person said meanwhile (a first message among it) is sent now.
      await this.#drain(live);
    });
    return this.view(project, key);
  }

  /**
   * Answers a waiting permission request with one of the agent's options,
   * or cancels it (`optionId: null`).
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @param requestId The request, as its `permission` entry names it.
   * @param optionId One of the request's options, or null to cancel it.
   * @throws {ConflictError} when the request is not waiting (answered, or from an earlier run).
   * @throws {InvalidInputError} when the option is not one the agent offered.
   */
  async answer(
    project: string,
    key: string,
    requestId: string,
    optionId: string | null,
  ): Promise<SessionView> {
    const live = this.#live.get(liveKey(project, key));
    const resolve = live?.asking.get(requestId);
    if (!live || !resolve) {
      await this.#pointer(project, key);
      throw new ConflictError(
        `The session ${key} has no permission request ${requestId} waiting: it was answered, ` +
          `cancelled, or asked before Sync restarted`,
      );
    }
    if (optionId !== null) {
      // The live request's options: its stored entry may have been cut to fit.
      const options = live.options.get(requestId) ?? [];
      if (!options.some((o) => o.optionId === optionId)) {
        throw new InvalidInputError(
          `${JSON.stringify(optionId)} is not one of the options the agent offered: ` +
            options.map((o) => `${o.optionId} (${o.name})`).join(", "),
        );
      }
    }
    live.asking.delete(requestId);
    resolve(optionId === null ? "cancelled" : { optionId });
    // The agent goes on; the state is `running` again (or waits for another request) once written.
    await this.#asked(live);
    return this.view(project, key);
  }

  /**
   * Keeps the conversation: writes it as a `chat.conversation` record in
   * the project's memory (a person's write). Kept again, it writes a new
   * revision only when something changed since; with nothing new, the
   * record is left as it is and the answer says so (`kept.written`).
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @returns The session, its `keptAs` naming the record, and what was kept.
   */
  async keep(project: string, key: string): Promise<SessionView & { kept: ConversationKept }> {
    const live = this.#live.get(liveKey(project, key));
    if (live) {
      // With the entries not written yet; a live session's pointer that
      // cannot be written fails the session, in its own words.
      const { session, transcript, omitted } = await this.view(project, key);
      const kept = await writeConversation(
        await this.#projectMemory(project),
        session,
        { entries: transcript, omitted },
        () => new Date(this.#now()),
      );
      if (live.pointer.keptAs !== kept.key) await this.#change(live, { keptAs: kept.key });
      return { ...await this.view(project, key), kept };
    }
    // Nothing of it is still being written: kept as the CLI keeps it, the
    // pointer first, so a disk that refuses either leaves neither written.
    const { session, kept } = await keepConversation(
      this.#kv,
      await this.#projectMemory(project),
      project,
      key,
      () => new Date(this.#now()),
    );
    this.#tell(session);
    return { ...await this.view(project, key), kept };
  }

  /**
   * Archives a conversation (Chat lists it apart, under Archived), or
   * restores an archived one to the list.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @param archived True to archive it, false to restore it.
   * @throws {ConflictError} when archiving one that is running or waits for a person.
   */
  async archive(project: string, key: string, archived: boolean): Promise<SessionView> {
    const live = this.#live.get(liveKey(project, key));
    if (live) {
      if (archived) checkStopped(live.pointer, "archive");
      if (live.working && archived) {
        throw new ConflictError(
          `The conversation ${key} is running: stop it first, then archive it`,
        );
      }
      await this.#change(live, {
        archivedAt: archived ? new Date(this.#now()).toISOString() : null,
      });
      return this.view(project, key);
    }
    this.#tell(await archiveSession(this.#kv, project, key, archived, () => new Date(this.#now())));
    return this.view(project, key);
  }

  /**
   * Deletes a conversation from the installation: its pointer, its stored
   * transcript and its messages not sent yet. Its agent, kept for the next
   * turn, is stopped first. A kept `chat.conversation` record stays in the
   * project's memory.
   *
   * @param project The project's resolved folder.
   * @param key The session's key.
   * @returns The pointer as it was.
   * @throws {ConflictError} when it is running or waits for a person.
   */
  async delete(project: string, key: string): Promise<AgentSession> {
    const live = this.#live.get(liveKey(project, key));
    if (live) {
      checkStopped(live.pointer, "delete");
      if (live.working || live.holds > 0) {
        throw new ConflictError(
          `The conversation ${key} is running: stop it first, then delete it`,
        );
      }
      clearTimeout(live.idle);
      this.#live.delete(liveKey(project, key));
      const acp = live.acp;
      live.acp = null;
      await acp?.close().catch(() => {});
      await live.writer.flush();
      await live.writes.catch(() => {});
    }
    const deleted = await deleteSession(this.#kv, project, key);
    // Told as deleted, not as a change: a page drops it instead of reading what is gone.
    this.#events.publish({
      type: "session",
      project: deleted.project,
      session: deleted,
      deleted: true,
    });
    return deleted;
  }

  /**
   * Listens for receipts of calls that ordered work in their project. Only
   * those: the outbox keeps every order made, so looking at it after every
   * call would cost each call more the longer a project has had work.
   */
  async #listen(): Promise<void> {
    const subscription = this.#subscription!;
    while (!subscription.closed) {
      const event = await subscription.next(60_000);
      if (event === null) continue;
      if (event.type === "receipt" && event.workOrdered) this.scan(event.project);
      else if (event.type === "resync") {
        for await (const entry of this.#kv.list<{ path: string }>({ prefix: projectsPrefix() })) {
          this.scan(entry.value.path);
        }
      }
    }
  }

  async #scan(project: string): Promise<void> {
    if (this.#stopping) return;
    const memory = await this.#projectMemory(project);
    const after = this.#scanned.get(project);
    const orders = await listWorkOrders(memory, after === undefined ? {} : { after });
    const begun = await sessionsThatExist(this.#kv, project, orders.map((o) => o.key));
    const settled = this.#now() - ORDERS_SETTLE_MS;
    let passed = after;
    let passing = true;
    for (const order of orders) {
      if (this.#stopping) return;
      let done = begun.has(order.key) || order.kind !== "agent.session";
      if (!done) done = await this.#perform(order);
      // Passed over by later scans only while every order before it is done and settled.
      passing &&= done && Date.parse(order.orderedAt) < settled;
      if (passing) passed = order.key;
    }
    if (passed !== undefined) this.#scanned.set(project, passed);
  }

  /**
   * Begins the session that performs an order, once across processes.
   *
   * @returns True when the order has its session now, begun here or elsewhere.
   */
  async #perform(order: WorkOrder): Promise<boolean> {
    const now = new Date(this.#now()).toISOString();
    const pointer: AgentSession = {
      key: order.key,
      project: order.project,
      agent: order.agent,
      agentSessionId: null,
      orderKey: order.key,
      extensionId: order.extensionId ?? null,
      extensionName: order.source.kind === "handler" ? order.source.extensionName : null,
      source: order.source,
      title: order.title,
      ...(order.about !== undefined ? { about: order.about } : {}),
      state: "running",
      waitingFor: null,
      onInterrupted: order.onInterrupted,
      createdAt: now,
      updatedAt: now,
      error: null,
      keptAs: null,
    };
    // Another process (or an earlier scan) began it: it is not started twice.
    if (!await createSession(this.#kv, pointer)) return true;
    this.#tell(pointer);
    const live = this.#makeLive(pointer, { entries: [], omitted: 0 });
    this.#work(live, async () => {
      const text = await orderPrompt(this.#kv, order);
      await this.#raise(live, "new");
      await this.#turn(live, text);
    });
    return true;
  }

  #makeLive(pointer: AgentSession, stored: StoredTranscript): LiveSession {
    const writer = new TranscriptWriter(this.#kv, pointer.project, pointer.key, stored, {
      limits: this.#limits,
      onError: (error) =>
        this.#log(
          `The transcript of ${pointer.key} in ${pointer.project} could not be written: ` +
            `${describeError(error).message}; it is written again with the next entry`,
        ),
    });
    const live = new LiveSession(pointer, writer);
    this.#live.set(liveKey(pointer.project, pointer.key), live);
    return live;
  }

  /**
   * Runs `use` with the session live and held: it does not leave memory
   * meanwhile, so a person's actions that come at once all find the same
   * live session (one agent, one chain of writes). Once the last hold is
   * let go, a session with no work under way may leave.
   */
  async #holding<T>(
    project: string,
    key: string,
    use: (live: LiveSession) => Promise<T>,
  ): Promise<T> {
    const live = await this.#liveFor(project, key);
    try {
      return await use(live);
    } finally {
      live.holds--;
      if (live.holds === 0 && !live.working && !this.#stopping) this.#idle(live);
    }
  }

  /**
   * The live session, or one made live from the pointer and the stored
   * transcript; held (`holds` counted) from the moment it is found, which
   * {@linkcode WorkPerformer.#holding} lets go.
   */
  async #liveFor(project: string, key: string): Promise<LiveSession> {
    const found = this.#live.get(liveKey(project, key));
    if (found) {
      found.holds++;
      return found;
    }
    const pointer = await this.#pointer(project, key);
    const stored = await this.#stored(project, key);
    const live = this.#live.get(liveKey(project, key)) ?? this.#makeLive(pointer, stored);
    live.holds++;
    return live;
  }

  #stored(project: string, key: string): Promise<StoredTranscript> {
    return readTranscript(this.#kv, project, key);
  }

  async #pointer(project: string, key: string): Promise<AgentSession> {
    const session = await readSession(this.#kv, project, key);
    if (!session) throw new NotFoundError(`There is no session ${key} in ${project}`);
    return session;
  }

  #checkTurn(text: unknown): void {
    if (typeof text !== "string" || text.trim() === "") {
      throw new InvalidInputError('A turn needs "text": what to tell the agent');
    }
    if (text.length > this.#limits.maxTurnChars) {
      throw new InvalidInputError(
        `A turn is at most ${this.#limits.maxTurnChars} characters; this one has ${text.length}`,
      );
    }
  }

  /**
   * Runs a piece of a session's work in the background: a failure becomes
   * the session's state (`failed`, or `waiting` for a sign-in), never a
   * rejection nobody hears.
   */
  #work(live: LiveSession, what: () => Promise<void>): void {
    live.working = true;
    live.accepting = true;
    live.cancelled = false;
    const mine = ++live.task;
    clearTimeout(live.idle);
    // One piece of a session's work at a time: a piece begun while the one before is still
    // failing (closing its agent, writing `failed`) waits for it, so that one agent at most is
    // raised for the session and its messages are sent once, in order.
    const before = live.tasks;
    const task = (async () => {
      await before;
      try {
        if (this.#stopping) return;
        // The piece before may have written its own end meanwhile.
        if (live.pointer.state !== "running") {
          await this.#change(live, { state: "running", waitingFor: null, error: null });
        }
        await what();
      } catch (error) {
        // What the person sends from now on waits with the session for Continue.
        if (live.task === mine) live.accepting = false;
        if (this.#stopping) return;
        await live.acp?.close().catch(() => {});
        live.acp = null;
        if (error instanceof AgentSignInRequiredError) {
          await this.#change(live, {
            state: "waiting",
            waitingFor: {
              kind: "sign-in",
              text: reason(error.message),
              ...(error.ways.length > 0 ? { ways: error.ways } : {}),
            },
          });
          return;
        }
        const described = describeError(error);
        const stderrTail = error instanceof AgentFailedError ? tailOf(error.stderrTail) : "";
        await this.#change(live, {
          state: "failed",
          waitingFor: null,
          error: {
            // Sync stopped the agent because the person cancelled: said as theirs, not the agent's.
            name: live.cancelled && error instanceof AgentFailedError
              ? "Cancelled"
              : described.name.slice(0, 100),
            message: reason(described.message),
            ...(stderrTail ? { stderrTail } : {}),
          },
        });
      } finally {
        // A newer piece of work may have begun once this one set the state.
        if (live.task === mine) {
          live.working = false;
          live.accepting = false;
          live.activity?.rest();
          if (!this.#stopping) this.#idle(live);
        }
      }
    })();
    live.tasks = task;
    this.#tasks.add(task);
    task.finally(() => this.#tasks.delete(task));
  }

  /**
   * Raises the session's agent: a new session, or the agent's own loaded
   * again (`session/load`) when it can, else a new one seeded with the
   * stored transcript.
   */
  async #raise(live: LiveSession, mode: "new" | "resume"): Promise<void> {
    live.opening = true;
    try {
      await this.#raiseAgent(live, mode);
    } finally {
      live.opening = false;
    }
  }

  /** {@linkcode WorkPerformer.#raise}, while `opening` is set. */
  async #raiseAgent(live: LiveSession, mode: "new" | "resume"): Promise<void> {
    const pointer = live.pointer;
    try {
      const definition = await readAgent(this.#kv, pointer.agent);
      if (!definition) {
        const names = (await listAgents(this.#kv)).map((a) => a.name).join(", ");
        throw new AgentFailedError(
          `There is no agent named ${pointer.agent}: add one with ` +
            `sync agents add ${pointer.agent} --command <program>, or order one of: ${names}`,
        );
      }
      let command: AgentCommand = {
        command: definition.command,
        args: definition.args,
        env: definition.env,
      };
      // npm fetching the agent (npx, on first use) is asked to say so, and is shown.
      const runner = npmRunner(command);
      if (runner !== null) command = withFetchLog(command);
      const activity = this.#activity(live, runner);
      let peer: AgentPeer;
      try {
        peer = watchedPeer(
          await this.#launch(command, {
            cwd: pointer.project,
            owner: ownerOf(pointer),
            onStderr: (text) => activity.stderr(text),
          }),
          activity,
        );
      } catch (error) {
        throw missingProgram(definition, error);
      }
      if (this.#stopping) {
        await peer.stop();
        throw new AgentFailedError("Sync is stopping");
      }
      live.peer = peer;
      const raising = new AbortController();
      live.raising = raising;
      let offer: McpOffer | null = null;
      const acp = await startAcpSession(peer, {
        agentName: pointer.agent,
        project: pointer.project,
        askPermission: (request, signal) => this.#ask(live, request, signal),
        onEntry: (entry) => this.#entry(live, entry),
        mcpServers: async (facts) => {
          offer ??= await this.#mcpServersFor(live.pointer, facts);
          return offer.servers;
        },
        agentCommand: [definition.command, ...definition.args],
        envHas: (name) =>
          (Object.hasOwn(definition.env, name) && definition.env[name] !== "") ||
          (!name.startsWith("SYNC_") && this.#envHas(name)),
        signsOfLife: activity,
        initializeTimeoutMs: this.#initializeTimeoutMs,
        sessionTimeoutMs: this.#sessionTimeoutMs,
        cancelGraceMs: this.#cancelGraceMs,
        now: () => new Date(this.#now()),
        cancelled: raising.signal,
      });
      live.acp = acp;
      live.peer = null;
      live.raising = null;
      activity.ready();
      acp.exited.then(() => {
        // Stopping waits for it: a token must not outlive its agent.
        const released = offer?.release?.().catch(() => {});
        if (released) {
          this.#tasks.add(released);
          released.finally(() => this.#tasks.delete(released));
        }
        // Between turns the agent may end by itself: the next turn raises it again.
        if (live.acp === acp && !live.working) {
          live.acp = null;
          if (!this.#stopping) this.#idle(live);
        }
      });
      if (mode === "resume" && pointer.agentSessionId !== null && acp.facts.loadSession) {
        try {
          await acp.load(pointer.agentSessionId);
          return;
        } catch (error) {
          if (!(error instanceof AgentFailedError)) throw error;
          // It cannot load this one (it restarted and forgot it): a new session, seeded.
        }
      }
      const sessionId = await acp.newSession();
      if (mode === "resume") {
        const earlier = transcriptText(live.writer.transcript.entries, this.#limits.maxSeedChars);
        live.seed = earlier.trim() === "" ? null : earlier;
      }
      await this.#change(live, { agentSessionId: sessionId });
    } catch (error) {
      live.peer = null;
      live.raising = null;
      if (!(error instanceof AgentSignInRequiredError) && !this.#stopping) {
        this.#entry(live, {
          at: new Date(this.#now()).toISOString(),
          kind: "failure",
          message: describeError(error).message,
          ...(error instanceof AgentFailedError && error.stderrTail
            ? { stderrTail: error.stderrTail }
            : {}),
          // Stopped while it started because the person cancelled: not the agent going wrong.
          ...(live.cancelled ? { cancelled: true } : {}),
        });
      }
      throw error;
    }
  }

  /**
   * One turn: `running` while it goes, `ended` when the agent ends it. A
   * pending turn (`pendingId`) leaves the pointer once it is on its way.
   */
  async #turn(live: LiveSession, text: string, pendingId?: string): Promise<void> {
    const acp = live.acp;
    if (acp === null) throw new AgentFailedError(`The agent ${live.pointer.agent} is not running`);
    if (live.pointer.state !== "running") {
      await this.#change(live, { state: "running", waitingFor: null, error: null });
    }
    live.activity?.show("working");
    if (live.cancelled) {
      live.cancelled = false;
      this.#entry(live, {
        at: new Date(this.#now()).toISOString(),
        kind: "turn_end",
        stopReason: "cancelled",
      });
      await this.#change(live, { state: "ended", waitingFor: null });
      return;
    }
    let sent = text;
    if (live.seed !== null) {
      sent = `Sync restored this conversation in a new session; here is what was said before:\n\n` +
        `${live.seed}\n\nThe person now says:\n\n${text}`;
      live.seed = null;
      live.seededText = text;
    }
    const turn = acp.prompt(sent);
    // Its failure is the turn's, heard below once the message has left the pending ones.
    turn.catch(() => {});
    if (pendingId !== undefined) await this.#sent(live, pendingId);
    await turn;
    live.cancelled = false;
    if (this.#stopping) return;
    await this.#change(live, { state: "ended", waitingFor: null });
  }

  /**
   * A session whose turn is over: its agent is kept for the next turn a
   * while (`idleAgentMs`), then stopped, and the session leaves memory (its
   * pointer and transcript stay; the next turn raises the agent again). One
   * with no agent running leaves at once.
   */
  #idle(live: LiveSession): void {
    clearTimeout(live.idle);
    // A session waiting for a person (a sign-in) stays, so that stopping marks it interrupted.
    if (live.pointer.state === "waiting" || live.pointer.state === "running") return;
    const leave = async () => {
      if (live.working || live.holds > 0 || this.#stopping) return;
      const acp = live.acp;
      live.acp = null;
      await acp?.close().catch(() => {});
      await live.writer.flush();
      await live.writes.catch(() => {});
      // A person's action that found it meanwhile holds it: it stays.
      if (live.working || live.holds > 0 || live.acp !== null) return;
      const id = liveKey(live.pointer.project, live.pointer.key);
      if (this.#live.get(id) === live) this.#live.delete(id);
    };
    if (live.acp === null) {
      this.#track(leave());
      return;
    }
    live.idle = setTimeout(() => this.#track(leave()), this.#limits.idleAgentMs);
  }

  #track(task: Promise<unknown>): void {
    this.#tasks.add(task);
    task.finally(() => this.#tasks.delete(task));
  }

  /**
   * A permission the agent asks: the session waits for a person's answer,
   * and stays `waiting` while any request is open (`waitingFor` names the
   * oldest still open).
   */
  #ask(
    live: LiveSession,
    request: PermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionAnswer> {
    const answered = new Promise<PermissionAnswer>((resolve) => {
      live.asking.set(request.requestId, resolve);
      live.options.set(request.requestId, request.options);
      signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
    });
    this.#change(live, {
      state: "waiting",
      waitingFor: { kind: "permission", requestId: live.asking.keys().next().value ?? "" },
    });
    return answered.finally(() => {
      live.options.delete(request.requestId);
      if (live.asking.delete(request.requestId)) this.#asked(live);
    });
  }

  /**
   * A request was answered: the session is `running` again, or still
   * `waiting` for the oldest request still open.
   */
  async #asked(live: LiveSession): Promise<void> {
    if (this.#stopping || !live.working) return;
    const oldest: string | undefined = live.asking.keys().next().value;
    await this.#change(
      live,
      oldest === undefined
        ? { state: "running", waitingFor: null }
        : { state: "waiting", waitingFor: { kind: "permission", requestId: oldest } },
    );
  }

  /**
   * An entry of the transcript: kept, and told as it is kept (fitted to one
   * stored value), so a page is told no more than the store holds. Replayed
   * entries are Sync's already.
   */
  #entry(live: LiveSession, entry: TranscriptEntry): void {
    if (entry.replay) return;
    let kept = entry;
    // Sync stopping ends the agent's process: the turn failing for it is Sync's doing.
    if (entry.kind === "failure" && this.#stopping) kept = { at: entry.at, kind: "stopped" };
    if (entry.kind === "user" && live.seededText !== null) {
      kept = { ...entry, text: live.seededText };
      live.seededText = null;
    }
    this.#events.publish({
      type: "transcript",
      project: live.pointer.project,
      sessionKey: live.pointer.key,
      entry: live.writer.add(kept),
    });
  }

  /**
   * Changes a live session's pointer, after its transcript is written (a
   * page that hears the fact and reads finds both), and tells it. Resolves true once written,
   * false when the write failed (the session is then failed in Sync's words).
   */
  #change(
    live: LiveSession,
    change: PointerChange | ((session: AgentSession) => PointerChange),
  ): Promise<boolean> {
    const write = live.writes.then(async () => {
      await live.writer.flush();
      const written = await updateSession(
        this.#kv,
        live.pointer.project,
        live.pointer.key,
        (s) => ({
          ...s,
          ...(typeof change === "function" ? change(s) : change),
          updatedAt: new Date(this.#now()).toISOString(),
        }),
      );
      live.pointer = written;
      this.#tell(written);
      return true;
    }).catch(async (error) => {
      const why = cutText(describeError(error).message, 500);
      this.#log(
        `The session ${live.pointer.key} in ${live.pointer.project} could not be written: ${why}`,
      );
      // A state that cannot be written must not stay `running`: the session fails with Sync's own words.
      await this.#failUnwritten(live, why);
      return false;
    });
    live.writes = write;
    return write;
  }

  /**
   * A pointer write failed: the session becomes `failed` with a short
   * reason Sync writes itself, and its agent is stopped, so it never stays
   * `running` or `waiting` with nothing moving it.
   */
  async #failUnwritten(live: LiveSession, why: string): Promise<void> {
    try {
      const written = await updateSession(
        this.#kv,
        live.pointer.project,
        live.pointer.key,
        (s) => ({
          ...s,
          state: "failed",
          waitingFor: null,
          error: {
            name: "SessionNotWritten",
            message: `Sync could not write this session's state (${why}), so it stopped the ` +
              `agent; press Continue in the app's Chat to pick it up.`,
          },
          updatedAt: new Date(this.#now()).toISOString(),
        }),
      );
      live.pointer = written;
      this.#tell(written);
    } catch (error) {
      this.#log(
        `The session ${live.pointer.key} in ${live.pointer.project} could not be marked failed: ` +
          describeError(error).message,
      );
    }
    for (const resolve of live.asking.values()) resolve("cancelled");
    const acp = live.acp;
    const peer = live.peer;
    live.acp = null;
    live.peer = null;
    this.#track(Promise.allSettled([acp?.close(), peer?.stop()]));
  }

  /** A session left running or waiting by a Sync that stopped: `interrupted`, for a person to continue. */
  async #interrupt(project: string, key: string, was: AgentSessionState): Promise<void> {
    try {
      const written = await updateSession(this.#kv, project, key, (s) =>
        isActive(s.state)
          ? {
            ...s,
            state: "interrupted",
            waitingFor: null,
            error: {
              name: "Interrupted",
              message: `Sync stopped while this session was ${was}. Its order asked to ` +
                `${s.onInterrupted === "continue" ? "continue" : "wait for a person"}; ` +
                `nothing resumes by itself: press Continue in the app's Chat to pick it up.`,
            },
            updatedAt: new Date(this.#now()).toISOString(),
          }
          : null);
      this.#tell(written);
    } catch (error) {
      this.#log(`Could not mark ${key} in ${project} interrupted: ${describeError(error).message}`);
    }
  }

  /**
   * A new tracker of what the session's agent process is doing, shown at
   * once as `starting`; it replaces the tracker of an earlier process.
   */
  #activity(live: LiveSession, runner: NpmRunner | null): ActivityTracker {
    live.activity?.rest();
    const { project, key } = live.pointer;
    const tracker = new ActivityTracker({
      runner,
      now: this.#now,
      publish: (activity) =>
        this.#events.publish({ type: "activity", project, sessionKey: key, activity }),
    });
    live.activity = tracker;
    tracker.show("starting");
    return tracker;
  }

  #tell(session: AgentSession): void {
    this.#events.publish({ type: "session", project: session.project, session });
  }
}

/**
 * Whose agents a session's process counts among, so that each is held to the
 * limit per owner and none can use up another's: the ordering extension's
 * (also for work an agent performing that extension's work ordered in turn),
 * the work agents a person connected ordered, or a person's conversations.
 */
function ownerOf(session: AgentSession): string {
  const extension = orderingExtension(session);
  if (extension !== null) return `work ordered by ${extension}`;
  return session.source.kind === "agent" ? "work ordered by agents" : "conversations with agents";
}

/** True when Sync's own environment sets the variable, not empty; false when it may not be read. */
function hostEnvHas(name: string): boolean {
  try {
    return (Deno.env.get(name) ?? "") !== "";
  } catch {
    return false;
  }
}
