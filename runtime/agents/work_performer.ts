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
 * This file is the sessions' life in this run: what a person asks and
 * what it starts, which sessions are held live, and when one leaves
 * memory. Its parts, each given what it needs as a small options object:
 * finding the orders (`_outbox_scanner.ts`), raising an agent
 * (`_raise_agent.ts`), running a piece of a session's work
 * (`_session_work.ts`), the turns and the messages that wait for them
 * (`_session_turns.ts`), writing and telling a session's changes
 * (`_session_writes.ts`), the permissions an agent asks
 * (`_permission_requests.ts`), and putting a conversation away
 * (`session_removal.ts`).
 *
 * @module
 */
import type { AgentSession } from "../agent_session.ts";
import type { AgentActivity } from "../agent_activity.ts";
import type { EventBus } from "../event_bus.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../errors.ts";
import { describeError } from "../internal/describe_error.ts";
import { newId } from "../internal/id.ts";
import { SESSION_LIMITS, type SessionLimits } from "../limits.ts";
import type { SyncEvent } from "../sync_event.ts";
import type { TranscriptEntry } from "../transcript.ts";
import { readWorkOrder, type WorkOrder } from "../work/mod.ts";
import { listAgents, type ListedAgent, readAgent } from "./agent_definitions.ts";
import type { AgentLauncher, McpServersFor } from "./agent_launcher.ts";
import { orderPrompt } from "./order_prompt.ts";
import { createSession, listSessions, readSession } from "./session_store.ts";
import { spawnAgent } from "./spawn_agent.ts";
import { readTranscript, type StoredTranscript, TranscriptWriter } from "./transcript_store.ts";
import { type ConversationKept, keepConversation, writeConversation } from "./keep_conversation.ts";
import { isActive, liveKey, LiveSession } from "./_live_session.ts";
import { forgetPendingTurn, keepPendingTurn } from "./pending_turns.ts";
import {
  archiveConversation,
  type ConversationRemovalOptions,
  deleteConversation,
} from "./session_removal.ts";
import { OutboxScanner } from "./_outbox_scanner.ts";
import { raiseAgent, type RaiseAgentOptions } from "./_raise_agent.ts";
import { SessionWrites } from "./_session_writes.ts";
import { type SessionWorkOptions, startWork } from "./_session_work.ts";
import { queueMessage, runTurn, sendPending, type SessionTurnsOptions } from "./_session_turns.ts";
import {
  answerPermission,
  askPermission,
  type PermissionRequestsOptions,
} from "./_permission_requests.ts";

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

/** Performs work orders and a person's conversations; one per process that serves. */
export class WorkPerformer {
  #kv: Deno.Kv;
  #events: EventBus;
  #projectMemory: (project: string) => Promise<Deno.Kv>;
  #now: () => number;
  #log: (line: string) => void;
  #limits: SessionLimits;
  #live = new Map<string, LiveSession>();
  #tasks = new Set<Promise<unknown>>();
  #stopping = false;
  #started = false;
  #writes: SessionWrites;
  #scanner: OutboxScanner;
  #raising: RaiseAgentOptions;
  #permissions: PermissionRequestsOptions;
  #work: SessionWorkOptions;
  #turns: SessionTurnsOptions;

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
    this.#limits = options.limits ?? SESSION_LIMITS;
    const envHas = options.envHas ?? hostEnvHas;
    const stopping = () => this.#stopping;
    const track = (task: Promise<unknown>) => this.#track(task);
    const publish = (event: SyncEvent) => this.#events.publish(event);
    this.#writes = new SessionWrites({
      kv: this.#kv,
      publish,
      now: this.#now,
      log: this.#log,
      stopping,
      track,
    });
    this.#scanner = new OutboxScanner({
      kv: this.#kv,
      events: this.#events,
      projectMemory: this.#projectMemory,
      now: this.#now,
      log: this.#log,
      stopping,
      perform: (order) => this.#perform(order),
    });
    this.#raising = {
      kv: this.#kv,
      publish,
      now: this.#now,
      launch: options.launch ??
        ((command, { cwd, onStderr }) => Promise.resolve(spawnAgent(command, { cwd, onStderr }))),
      mcpServersFor: options.mcpServersFor ?? (() => Promise.resolve({ servers: [] })),
      envHas,
      initializeTimeoutMs: options.initializeTimeoutMs,
      sessionTimeoutMs: options.sessionTimeoutMs,
      cancelGraceMs: options.cancelGraceMs,
      limits: this.#limits,
      writes: this.#writes,
      stopping,
      track,
      idle: (live) => this.#idle(live),
      ask: (live, request, signal) => askPermission(live, request, signal, this.#permissions),
    };
    this.#permissions = { writes: this.#writes, stopping };
    this.#turns = { kv: this.#kv, now: this.#now, writes: this.#writes, stopping };
    this.#work = { writes: this.#writes, stopping, track, idle: (live) => this.#idle(live) };
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
      await this.#writes.interrupt(session.project, session.key, session.state);
    }
    await this.#scanner.start();
  }

  /**
   * Stops every session: agents are stopped, transcripts written, and
   * sessions that were running or waiting become `interrupted`. Resolves
   * when every agent process has ended.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#scanner.stop();
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
        await this.#writes.interrupt(live.pointer.project, live.pointer.key, live.pointer.state);
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
    return this.#scanner.scan(project);
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
    this.#writes.tell(pointer);
    const live = this.#makeLive(pointer, { entries: [], omitted: 0 });
    startWork(live, async () => {
      await raiseAgent(live, "new", this.#raising);
      await sendPending(live, this.#turns);
    }, this.#work);
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
    await queueMessage(live, text, this.#turns);
    // Waiting for a sign-in, it is sent after Continue; work under way that still looks sends it.
    if (signIn || live.accepting) return;
    live.working = true;
    // Going on with an archived conversation brings it back to Chat's list.
    await this.#writes.change(live, {
      state: "running",
      waitingFor: null,
      error: null,
      archivedAt: null,
    });
    startWork(live, async () => {
      if (live.acp === null) await raiseAgent(live, "resume", this.#raising);
      await sendPending(live, this.#turns);
    }, this.#work);
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
      await this.#writes.change(stopped, { state: "ended", waitingFor: null });
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
    await this.#writes.change(live, {
      state: "running",
      waitingFor: null,
      error: null,
      archivedAt: null,
    });
    startWork(live, async () => {
      const order = live.pointer.agentSessionId === null && live.pointer.orderKey !== null
        ? await readWorkOrder(await this.#projectMemory(project), live.pointer.orderKey)
        : null;
      if (order) {
        if (live.acp === null) await raiseAgent(live, "new", this.#raising);
        await runTurn(live, await orderPrompt(this.#kv, order), this.#turns);
        if (live.pointer.state !== "ended") return;
      } else if (live.acp === null) {
        await raiseAgent(
          live,
          live.pointer.agentSessionId === null ? "new" : "resume",
          this.#raising,
        );
      }
      // What the person said meanwhile (a first message among it) is sent now.
      await sendPending(live, this.#turns);
    }, this.#work);
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
    if (!await answerPermission(live, requestId, optionId, this.#permissions)) {
      await this.#pointer(project, key);
      throw new ConflictError(
        `The session ${key} has no permission request ${requestId} waiting: it was answered, ` +
          `cancelled, or asked before Sync restarted`,
      );
    }
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
      if (live.pointer.keptAs !== kept.key) await this.#writes.change(live, { keptAs: kept.key });
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
    this.#writes.tell(session);
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
    await archiveConversation(project, key, archived, this.#removal(project, key));
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
    return await deleteConversation(project, key, {
      ...this.#removal(project, key),
      forget: (live) => this.#live.delete(liveKey(live.pointer.project, live.pointer.key)),
    });
  }

  /** What putting a conversation away needs of this performer. */
  #removal(project: string, key: string): ConversationRemovalOptions {
    return {
      kv: this.#kv,
      live: this.#live.get(liveKey(project, key)),
      writes: this.#writes,
      now: this.#now,
    };
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
    this.#writes.tell(pointer);
    const live = this.#makeLive(pointer, { entries: [], omitted: 0 });
    startWork(live, async () => {
      const text = await orderPrompt(this.#kv, order);
      await raiseAgent(live, "new", this.#raising);
      await runTurn(live, text, this.#turns);
    }, this.#work);
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
}

/** True when Sync's own environment sets the variable, not empty; false when it may not be read. */
function hostEnvHas(name: string): boolean {
  try {
    return (Deno.env.get(name) ?? "") !== "";
  } catch {
    return false;
  }
}
