/**
 * A session with an agent over the Agent Client Protocol: the client side of
 * `@agentclientprotocol/sdk` (its stable v1 entry), speaking newline-delimited
 * JSON-RPC over the agent's stdin and stdout.
 *
 * {@linkcode startAcpSession} connects and initializes; then the session is
 * made ({@linkcode AcpSession.newSession}) or loaded
 * ({@linkcode AcpSession.load}), and each {@linkcode AcpSession.prompt} is
 * one turn. Everything the agent reports arrives as transcript entries
 * through `onEntry`; a permission the agent asks waits for `askPermission`.
 *
 * What Sync offers the agent (client capabilities): reading and writing text
 * files inside the project folder (`project_files.ts`), and terminal sign-in
 * methods (`auth.terminal`): Sync shows the agent's own command with the
 * method's arguments for a person to run in a terminal, then tries again
 * when the person continues. Not offered:
 *
 * - terminals — a command the agent ran through Sync would run as Sync, with
 *   Sync's permissions and outside the supervisor's reach; agents run their
 *   own commands in their own process, where the person's approval of the
 *   agent already applies;
 * - elicitation and the unstable session capabilities — the stable v1 entry
 *   is what Sync speaks, and Chat asks a person only for permissions.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { CancelledSteps } from "./cancelled_steps.ts";
import { authMethodOf } from "./auth_method.ts";
import {
  type AgentAuthMethod,
  AgentFailedError,
  AgentSignInRequiredError,
} from "./agent_errors.ts";
import type { AgentExit, AgentPeer } from "./agent_peer.ts";
import { jsonRpcLines } from "./json_rpc_lines.ts";
import { knownFailure } from "./known_failure.ts";
import {
  type ProjectFolder,
  projectFolder,
  readProjectFile,
  writeProjectFile,
} from "./project_files.ts";
import { quietDeadline, type SignsOfLife } from "./quiet_deadline.ts";
import { agentId, entryFromUpdate } from "./session_update_entry.ts";
import { signInText, signInWays } from "./sign_in_ways.ts";
import { keptStderr, lastLine } from "./stderr_text.ts";
import type { PermissionChoice, StopReason, TranscriptEntry } from "../transcript.ts";
import { cutText } from "../internal/cut_text.ts";

/**
 * An MCP server offered to a session, as ACP spells it: stdio (`name`,
 * `command`, `args`, `env`), or `http` / `sse` (`name`, `url`, `headers`).
 */
export type McpServer = acp.McpServer;

/** A permission the agent asks, as Chat shows it. */
export interface PermissionRequest {
  /** Names the request; the transcript's `permission` and `permission_answer` entries carry it. */
  requestId: string;
  /** The agent's session. */
  sessionId: string;
  /** The tool call it is about. */
  toolCallId: string;
  /** What the agent wants to do, in its words. */
  title: string;
  /** The agent's own options, in its order. */
  options: PermissionChoice[];
}

/** A person's answer: one of the request's options, or `cancelled`. */
export type PermissionAnswer = { optionId: string } | "cancelled";

/**
 * Asks a person. It may take as long as the person does: the agent waits.
 * `signal` aborts when the turn is cancelled or the session closes; the
 * request is then answered `cancelled` whatever this resolves with.
 */
export type AskPermission = (
  request: PermissionRequest,
  signal: AbortSignal,
) => Promise<PermissionAnswer>;

/** What the agent said of itself when it initialized. */
export interface AgentFacts {
  /** The agent's name, title and version, when it gave them. */
  info: { name: string; title?: string; version: string } | null;
  /** The protocol version agreed. */
  protocolVersion: number;
  /** True when the agent can load a session it made before (`session/load`). */
  loadSession: boolean;
  /** True when the agent takes MCP servers over HTTP. */
  mcpHttp: boolean;
  /** The ways to sign in it lists, possibly none. */
  authMethods: AgentAuthMethod[];
}

/** Options for {@linkcode startAcpSession}. */
export interface AcpSessionOptions {
  /** The agent's name in Sync, such as `demo`; errors name it. */
  agentName: string;
  /** The project folder, absolute: the session's `cwd`, and the only place files are read and written. */
  project: string;
  /** Asks a person for a permission the agent wants. */
  askPermission: AskPermission;
  /** Receives every transcript entry as it happens, in order. */
  onEntry?: (entry: TranscriptEntry) => void;
  /**
   * MCP servers offered to the session (`session/new`, `session/load`), or
   * what gives them once the agent said what it takes (HTTP or not); none by
   * default.
   */
  mcpServers?: McpServer[] | ((facts: AgentFacts) => Promise<McpServer[]>);
  /**
   * How long the agent may say nothing (on stdout or stderr) before it has
   * answered `initialize`; `AGENT_LIMITS.initializeTimeoutMs` by default.
   */
  initializeTimeoutMs?: number;
  /**
   * The agent's signs of life, from which the `initialize` deadline counts;
   * without them it counts from when `initialize` was sent.
   */
  signsOfLife?: SignsOfLife;
  /** How long the agent may say nothing while npm downloads it; `AGENT_LIMITS.initializeDownloadQuietMs` by default. */
  initializeDownloadQuietMs?: number;
  /** How long `initialize` may take in all; `AGENT_LIMITS.initializeMaxMs` by default. */
  initializeMaxMs?: number;
  /** How long the agent may take to answer `session/new` or `session/load`; `AGENT_LIMITS.sessionTimeoutMs` by default. */
  sessionTimeoutMs?: number;
  /** How long a cancelled turn may go on before the agent is stopped; `AGENT_LIMITS.cancelGraceMs` by default. */
  cancelGraceMs?: number;
  /** The command the agent runs as, to spell a terminal sign-in; the agent's name when not given. */
  agentCommand?: readonly string[];
  /**
   * True when the agent's environment (Sync's own, with its definition's
   * over it) sets a variable, not empty. A sign-in method whose variables
   * are all set is one Sync signs in with itself (`authenticate`). Nothing
   * is set when not given.
   */
  envHas?: (name: string) => boolean;
  /** The clock entries are stamped with. */
  now?: () => Date;
  /**
   * Aborted when a person cancels while the agent is being raised, before
   * it answered `initialize`: the agent is stopped, and the start fails
   * saying it was cancelled.
   */
  cancelled?: AbortSignal;
}

/** The version of the client, as it introduces itself. */
const CLIENT_INFO = { name: "sync", title: "Sync", version: "0.1.0" };
/** How long a failing call waits for the process to end, to report its exit and stderr. */
const EXIT_GRACE_MS = 2_000;
/** The most characters of the agent's last line on stderr a failure's message quotes. */
const LAST_LINE_CHARS = 300;

/**
 * Connects to an agent and initializes: the client's capabilities go out,
 * the agent's facts come back. On any failure the agent is stopped.
 *
 * @param peer The agent's running process.
 * @param options The project, the person's permission prompt, where entries go.
 * @returns The connection, ready for a new or loaded session.
 * @throws {AgentFailedError} when the agent does not answer `initialize`
 *   and says nothing for the timeout ("The agent demo did not answer
 *   initialize within 30 s …"), or does not answer it within
 *   `AGENT_LIMITS.initializeMaxMs` at all, exits first, or refuses it; or
 *   when `options.cancelled` aborts first ("The agent demo was cancelled
 *   while it was starting, so Sync stopped its process").
 */
export async function startAcpSession(
  peer: AgentPeer,
  options: AcpSessionOptions,
): Promise<AcpSession> {
  const session = new AcpSession(peer, options, await projectFolder(options.project));
  // A session not made yet has nothing to cancel in the protocol: `cancel()` stops the agent.
  const onCancel = () => session.cancel().catch(() => {});
  options.cancelled?.addEventListener("abort", onCancel, { once: true });
  if (options.cancelled?.aborted) onCancel();
  try {
    await session.initialize();
    return session;
  } catch (error) {
    await session.close();
    throw error;
  } finally {
    options.cancelled?.removeEventListener("abort", onCancel);
  }
}

/** An ACP session with one agent process. */
export class AcpSession {
  #peer: AgentPeer;
  #options: AcpSessionOptions;
  #folder: ProjectFolder;
  #connection: acp.ClientConnection;
  #facts: AgentFacts | null = null;
  #sessionId: string | null = null;
  #replaying = false;
  #noise: string[] = [];
  #asking = new Set<AbortController>();
  #requestCount = 0;
  #exit: AgentExit | null = null;
  #turning = false;
  /** True while `session/new` or `session/load` waits for its answer. */
  #starting = false;
  /** The sign-in methods Sync called `authenticate` with on this connection. */
  #authenticated = new Set<string>();
  /** Why Sync's own sign-in did not take, told with the sign-in the agent then needs. */
  #authRefusal: string | null = null;
  /** The agent's words in its last error answer. */
  #refusedWords: string | null = null;
  /** Set when a cancel made Sync stop the agent: what the failure says. */
  #stoppedForCancel: ((what: string) => string) | null = null;
  #cancelTimer: ReturnType<typeof setTimeout> | undefined;
  /** The turn's tool calls and plan, and what a cancel left unfinished in it. */
  #steps = new CancelledSteps();

  /**
   * Use {@linkcode startAcpSession}, which also initializes.
   *
   * @param peer The agent's running process.
   * @param options As given to `startAcpSession`.
   * @param folder The project folder, resolved.
   */
  constructor(peer: AgentPeer, options: AcpSessionOptions, folder: ProjectFolder) {
    this.#peer = peer;
    this.#options = options;
    this.#folder = folder;
    peer.exited.then((exit) => this.#exit = exit, () => {});
    const app = acp.client({ name: "sync" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        if (params.sessionId !== this.#sessionId) return;
        const entry = entryFromUpdate(params.update, {
          at: this.#now(),
          replay: this.#replaying,
        });
        if (entry !== null) this.#emit(entry);
      })
      .onRequest(
        acp.methods.client.session.requestPermission,
        ({ params }) => this.#askPermission(params),
      )
      .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
        this.#checkSession(params.sessionId);
        const content = await readProjectFile(this.#folder, params.path, params);
        return { content };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
        this.#checkSession(params.sessionId);
        await writeProjectFile(this.#folder, params.path, params.content);
        return {};
      });
    const stdout = jsonRpcLines(peer.stdout, {
      onNoise: (line) => {
        this.#noise.push(line);
        if (this.#noise.length > AGENT_LIMITS.maxNoiseLines) this.#noise.shift();
      },
      maxLineBytes: AGENT_LIMITS.maxMessageBytes,
      maxNoiseChars: AGENT_LIMITS.maxNoiseLineChars,
    });
    this.#connection = app.connect(acp.ndJsonStream(peer.stdin, stdout));
  }

  /** What the agent said of itself; set once initialized. */
  get facts(): AgentFacts {
    if (this.#facts === null) throw new Error("The ACP session is not initialized yet");
    return this.#facts;
  }

  /** The agent's id of the current session, once made or loaded; what a pointer keeps. */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /**
   * The last lines the agent printed on stdout that were not JSON-RPC (at
   * most `AGENT_LIMITS.maxNoiseLines`); they were set aside, not read.
   */
  noise(): string[] {
    return [...this.#noise];
  }

  /**
   * Resolves when the agent's process has ended, whenever that is: during a
   * turn (the turn fails too), between turns, or after {@linkcode AcpSession.close}.
   */
  get exited(): Promise<AgentExit> {
    return this.#peer.exited;
  }

  /** The last of the agent's stderr, as a failure keeps it (`stderr_text.ts`). */
  stderrTail(): string {
    return keptStderr(this.#peer.stderrTail());
  }

  /**
   * Sends `initialize`. Called by {@linkcode startAcpSession}.
   *
   * @throws {AgentFailedError} as `startAcpSession` says.
   */
  async initialize(): Promise<AgentFacts> {
    const timeoutMs = this.#options.initializeTimeoutMs ?? AGENT_LIMITS.initializeTimeoutMs;
    const call = this.#call<acp.InitializeResponse>(
      "initialize",
      (agent) =>
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientInfo: CLIENT_INFO,
          clientCapabilities: {
            fs: { readTextFile: true, writeTextFile: true },
            terminal: false,
            // Sync spells the agent's own invocation, with a terminal method's arguments and
            // environment, for a person to run in a terminal (`sign_in_ways.ts`).
            auth: { terminal: true },
          },
        }),
    );
    // Counted from the agent's last sign of life: npm downloading it on first use takes
    // minutes and says so on stderr, while an agent that says nothing is given up on soon.
    const deadline = quietDeadline({
      quietMs: timeoutMs,
      downloadQuietMs: this.#options.initializeDownloadQuietMs ??
        AGENT_LIMITS.initializeDownloadQuietMs,
      maxMs: Math.max(timeoutMs, this.#options.initializeMaxMs ?? AGENT_LIMITS.initializeMaxMs),
      ...(this.#options.signsOfLife ? { signs: this.#options.signsOfLife } : {}),
    });
    // After the deadline the call still ends (when the connection closes); nobody waits for it then.
    call.catch(() => {});
    let answer: acp.InitializeResponse;
    try {
      answer = await Promise.race([
        call,
        deadline.passed.then((why) => {
          throw this.#failure(
            `did not answer initialize ${why}`,
            "; it may not speak ACP on stdio, or may be waiting for input",
          );
        }),
      ]);
    } finally {
      deadline.clear();
    }
    this.#facts = {
      info: answer.agentInfo
        ? {
          name: answer.agentInfo.name,
          version: answer.agentInfo.version,
          ...(answer.agentInfo.title ? { title: answer.agentInfo.title } : {}),
        }
        : null,
      protocolVersion: answer.protocolVersion,
      loadSession: answer.agentCapabilities?.loadSession === true,
      mcpHttp: answer.agentCapabilities?.mcpCapabilities?.http === true,
      authMethods: (answer.authMethods ?? []).map(authMethodOf),
    };
    return this.#facts;
  }

  /**
   * The call's answer, or an {@linkcode AgentFailedError} once `timeoutMs`
   * passed without one ("did not answer <what> within 30 s").
   */
  async #deadline<T>(
    call: Promise<T>,
    timeoutMs: number,
    what: string,
    hint = "",
    onTimeout?: () => Promise<void>,
  ): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          this.#failure(`did not answer ${what} within ${seconds(timeoutMs)}`, hint, undefined, {
            step: what,
          }),
        );
        // After the failure is told: the agent's exit must not be what the call reports.
        onTimeout?.().catch(() => {});
      }, timeoutMs);
    });
    // After a timeout the call still ends (when the connection closes); nobody waits for it then.
    call.catch(() => {});
    try {
      return await Promise.race([call, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A `session/new` or `session/load` call, signed in first when the
   * agent's environment gives what one of its methods reads; when the agent
   * answers that it needs a sign-in, Sync signs in with such a method (if it
   * has not yet) and asks once more.
   */
  async #signedInCall<T>(
    what: string,
    send: (agent: acp.ClientContext) => Promise<T>,
  ): Promise<T> {
    const ready = this.#methodsReady();
    if (this.#authenticated.size === 0 && ready.length > 0) await this.#tryAuthenticate(ready);
    try {
      return await this.#startCall(what, send);
    } catch (error) {
      if (!(error instanceof AgentSignInRequiredError)) throw error;
      const untried = this.#methodsReady().filter((m) => !this.#authenticated.has(m.id));
      if (untried.length === 0 || !await this.#tryAuthenticate(untried)) throw error;
      return await this.#startCall(what, send);
    }
  }

  /**
   * The methods Sync can sign in with itself: those that read environment
   * variables, each of which the agent's environment sets (optional ones
   * aside).
   */
  #methodsReady(): AgentAuthMethod[] {
    const envHas = this.#options.envHas;
    if (envHas === undefined) return [];
    // As many as a person is shown: an agent listing thousands is not tried thousands of times.
    return (this.#facts?.authMethods ?? []).filter((method) => {
      const needed = (method.envVars ?? []).filter((v) => !v.optional);
      return needed.length > 0 && needed.every((v) => envHas(v.name));
    }).slice(0, AGENT_LIMITS.maxSignInWays);
  }

  /**
   * Calls `authenticate` with each method in turn until the agent takes one.
   *
   * @returns True when one was taken.
   */
  async #tryAuthenticate(methods: AgentAuthMethod[]): Promise<boolean> {
    for (const method of methods) {
      this.#authenticated.add(method.id);
      try {
        await this.authenticate(method.id);
        this.#authRefusal = null;
        return true;
      } catch (error) {
        if (error instanceof AgentFailedError && error.code !== undefined) {
          // The agent's own refusal: told with the sign-in it needs, if it needs one.
          this.#authRefusal = `it refused to sign in with ${words(method.name)}: ` +
            (this.#refusedWords ?? "");
          continue;
        }
        throw error;
      }
    }
    return false;
  }

  /**
   * Signs in with one of the methods the agent listed (`authenticate`), as
   * the agent's environment stands.
   *
   * @param methodId The method's id, as the agent listed it.
   * @throws {AgentFailedError} when the agent refuses (its words, its error
   *   code), exits, or does not answer within the session timeout.
   */
  async authenticate(methodId: string): Promise<void> {
    await this.#startCall(
      "authenticate",
      (agent) => agent.request(acp.methods.agent.authenticate, { methodId }),
    );
  }

  /** A `session/new` or `session/load` call, within its deadline; the agent is stopped past it. */
  async #startCall<T>(what: string, send: (agent: acp.ClientContext) => Promise<T>): Promise<T> {
    const timeoutMs = this.#options.sessionTimeoutMs ?? AGENT_LIMITS.sessionTimeoutMs;
    this.#starting = true;
    try {
      return await this.#deadline(this.#call(what, send), timeoutMs, what, "", () => this.close());
    } finally {
      this.#starting = false;
    }
  }

  /**
   * Starts a new session in the project folder, with the MCP servers given.
   *
   * @returns The agent's session id.
   * @throws {AgentSignInRequiredError} when the agent wants a person to sign in first.
   * @throws {AgentFailedError} when the agent refuses, in its words, or exits, or
   *   answers a session id longer than `AGENT_LIMITS.maxSessionIdChars`.
   */
  async newSession(): Promise<string> {
    const servers = await this.#mcpServers();
    const answer = await this.#signedInCall(
      "session/new",
      (agent) =>
        agent.request(acp.methods.agent.session.new, {
          cwd: this.#folder.path,
          mcpServers: servers,
        }),
    );
    if (answer.sessionId.length > AGENT_LIMITS.maxSessionIdChars) {
      throw this.#failure(
        `answered session/new with a session id of ${answer.sessionId.length} characters, ` +
          `more than the ${AGENT_LIMITS.maxSessionIdChars} Sync keeps`,
        "",
        undefined,
        { step: "session/new" },
      );
    }
    this.#sessionId = answer.sessionId;
    return answer.sessionId;
  }

  /**
   * Loads a session the agent made before (`session/load`), when it
   * advertises `loadSession`. The agent replays the session as updates
   * before it answers; they arrive through `onEntry` marked `replay: true`.
   *
   * @param sessionId The agent's id of the session, as the pointer kept it.
   * @throws {AgentFailedError} when the agent cannot load sessions, or not
   *   this one (such as after it restarted): start a new session instead.
   * @throws {AgentSignInRequiredError} when the agent wants a person to sign in first.
   */
  async load(sessionId: string): Promise<void> {
    if (!this.facts.loadSession) {
      throw new AgentFailedError(
        `The agent ${this.#options.agentName} cannot load a session (it does not ` +
          `advertise loadSession); start a new session instead`,
        { stderrTail: this.stderrTail() },
      );
    }
    const servers = await this.#mcpServers();
    // The replay arrives before the answer: updates for this id are taken from now on.
    this.#sessionId = sessionId;
    this.#replaying = true;
    try {
      await this.#signedInCall(
        "session/load",
        (agent) =>
          agent.request(acp.methods.agent.session.load, {
            sessionId,
            cwd: this.#folder.path,
            mcpServers: servers,
          }),
      );
      await settled();
    } catch (error) {
      this.#sessionId = null;
      throw error;
    } finally {
      this.#replaying = false;
    }
  }

  /**
   * One turn: sends the prompt and waits for the agent to end the turn,
   * while its updates stream through `onEntry`. The prompt itself is the
   * turn's first entry (`user`); a `turn_end` entry is the last.
   *
   * @param text What the agent is told.
   * @returns Why the turn ended: `end_turn`, `cancelled` (after
   *   {@linkcode AcpSession.cancel}), `refusal`, `max_tokens`, `max_turn_requests`.
   * @throws {AgentFailedError} when the agent answers with an error (its
   *   words), exits during the turn (its exit code and stderr tail), or closes
   *   its output; a `failure` entry says the same.
   * @throws {AgentSignInRequiredError} when the agent wants a person to sign in first.
   * @throws {Error} when there is no session yet, or a turn is already under way.
   */
  async prompt(text: string): Promise<StopReason> {
    const sessionId = this.#sessionId;
    if (sessionId === null) {
      throw new Error("No session yet: call newSession() or load() before prompt()");
    }
    if (this.#turning) {
      throw new Error("A turn is under way: wait for it to end, or cancel it, before the next");
    }
    this.#turning = true;
    this.#steps.begin();
    try {
      this.#emit({
        at: this.#now(),
        kind: "user",
        text: cutText(text, AGENT_LIMITS.maxEntryChars),
      });
      const answer = await this.#call(
        "the turn",
        (agent) =>
          agent.request(acp.methods.agent.session.prompt, {
            sessionId,
            prompt: [{ type: "text", text }],
          }),
      );
      // Updates the agent sent before its answer may still be on their way through the SDK.
      await settled();
      for (const entry of this.#steps.closing(this.#now())) this.#emit(entry);
      this.#emit({ at: this.#now(), kind: "turn_end", stopReason: answer.stopReason });
      return answer.stopReason;
    } catch (error) {
      await settled();
      for (const entry of this.#steps.closing(this.#now())) this.#emit(entry);
      const failure = error instanceof AgentFailedError ? error : null;
      this.#emit({
        at: this.#now(),
        kind: "failure",
        message: error instanceof Error ? error.message : String(error),
        ...(failure?.stderrTail ? { stderrTail: failure.stderrTail } : {}),
        ...(this.#stoppedForCancel !== null ? { cancelled: true } : {}),
      });
      throw error;
    } finally {
      this.#turning = false;
      clearTimeout(this.#cancelTimer);
    }
  }

  /**
   * Cancels the turn under way (`session/cancel`): the agent stops and ends
   * the turn with `cancelled`. A permission still waiting for a person is
   * answered `cancelled`, as the protocol asks. An agent that has not ended
   * the turn `cancelGraceMs` later is stopped, and the turn fails saying so.
   * Before the agent's session exists (while `session/new` or
   * `session/load` waits) there is nothing to cancel in the protocol: the
   * agent is stopped at once, and the call fails saying so.
   */
  async cancel(): Promise<void> {
    if (this.#turning) this.#steps.cancel();
    for (const controller of this.#asking) controller.abort();
    if (this.#connection.signal.aborted || this.#exit !== null) return;
    if (this.#sessionId === null || this.#starting) {
      this.#stoppedForCancel = () =>
        `was cancelled while it was starting, so Sync stopped its process`;
      await this.close();
      return;
    }
    await this.#connection.agent.notify(acp.methods.agent.session.cancel, {
      sessionId: this.#sessionId,
    }).catch(() => {});
    if (!this.#turning) return;
    const graceMs = this.#options.cancelGraceMs ?? AGENT_LIMITS.cancelGraceMs;
    clearTimeout(this.#cancelTimer);
    this.#cancelTimer = setTimeout(() => {
      if (!this.#turning) return;
      this.#stoppedForCancel = (what) =>
        `did not end ${what} within ${
          seconds(graceMs)
        } of being cancelled, so Sync stopped its process`;
      this.close().catch(() => {});
    }, graceMs);
  }

  /** Closes the connection and stops the agent's process; resolves when it has ended. */
  async close(): Promise<void> {
    clearTimeout(this.#cancelTimer);
    for (const controller of this.#asking) controller.abort();
    this.#connection.close();
    await this.#peer.stop();
  }

  /** The MCP servers to offer, asked for once the agent's facts are known. */
  async #mcpServers(): Promise<McpServer[]> {
    const given = this.#options.mcpServers ?? [];
    return typeof given === "function" ? await given(this.facts) : given;
  }

  /** Answers `session/request_permission` with what a person chose. */
  async #askPermission(
    params: acp.RequestPermissionRequest,
  ): Promise<acp.RequestPermissionResponse> {
    this.#checkSession(params.sessionId);
    // Bounded as it is made, so its entry always fits one stored value: at most
    // `maxPermissionOptions` options, ids and names cut. A cut id stands for the agent's own,
    // which is what the agent is answered; an option whose cut id repeats one is left out.
    const offered = new Map<string, string>();
    const options: PermissionChoice[] = [];
    for (const option of params.options) {
      if (options.length >= AGENT_LIMITS.maxPermissionOptions) break;
      const optionId = agentId(option.optionId);
      if (offered.has(optionId)) continue;
      offered.set(optionId, option.optionId);
      options.push({
        optionId,
        name: cutText(option.name, AGENT_LIMITS.maxOptionNameChars),
        optionKind: option.kind,
      });
    }
    const request: PermissionRequest = {
      requestId: `permission-${++this.#requestCount}`,
      sessionId: params.sessionId,
      toolCallId: agentId(params.toolCall.toolCallId),
      title: cutText(
        params.toolCall.title ?? params.toolCall.toolCallId,
        AGENT_LIMITS.maxTitleChars,
      ),
      options,
    };
    this.#emit({ at: this.#now(), kind: "permission", ...request });
    const controller = new AbortController();
    this.#asking.add(controller);
    let answer: PermissionAnswer;
    try {
      const aborted = new Promise<"cancelled">((resolve) =>
        controller.signal.addEventListener("abort", () => resolve("cancelled"), { once: true })
      );
      answer = await Promise.race([
        this.#options.askPermission(request, controller.signal),
        aborted,
      ]);
    } catch {
      answer = "cancelled";
    } finally {
      this.#asking.delete(controller);
    }
    const known = answer !== "cancelled" && offered.has(answer.optionId);
    if (answer === "cancelled" || controller.signal.aborted || !known) {
      this.#emit({
        at: this.#now(),
        kind: "permission_answer",
        requestId: request.requestId,
        outcome: "cancelled",
      });
      return { outcome: { outcome: "cancelled" } };
    }
    const optionId = (answer as { optionId: string }).optionId;
    const agentsOptionId = offered.get(optionId)!;
    this.#emit({
      at: this.#now(),
      kind: "permission_answer",
      requestId: request.requestId,
      outcome: "selected",
      optionId,
    });
    return { outcome: { outcome: "selected", optionId: agentsOptionId } };
  }

  /** Refuses a request about a session other than this one. */
  #checkSession(sessionId: string): void {
    if (sessionId !== this.#sessionId) {
      throw acp.RequestError.sessionNotFound(sessionId);
    }
  }

  #emit(entry: TranscriptEntry): void {
    if (this.#turning) this.#steps.see(entry);
    this.#options.onEntry?.(entry);
  }

  #now(): string {
    return (this.#options.now?.() ?? new Date()).toISOString();
  }

  /**
   * Sends a request and turns every way it can fail into a domain error: the
   * agent's error answer, its process ending, or its output closing.
   */
  async #call<T>(what: string, send: (agent: acp.ClientContext) => Promise<T>): Promise<T> {
    const exited = this.#peer.exited.then((exit) => ({ exit }));
    let result: { value: T } | { exit: AgentExit };
    try {
      result = await Promise.race([
        send(this.#connection.agent).then((value) => ({ value })),
        exited,
      ]);
    } catch (error) {
      if (error instanceof acp.RequestError) throw this.#refusal(what, error);
      // The connection closed: the process has ended, or is about to.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<null>((resolve) =>
        timer = setTimeout(resolve, EXIT_GRACE_MS, null)
      );
      const exit = await Promise.race([exited, grace]);
      clearTimeout(timer);
      if (exit !== null) throw this.#exited(what, exit.exit);
      throw this.#failure(
        `closed its output during ${what}`,
        ` (${words(error instanceof Error ? error.message : String(error))})`,
        undefined,
        { step: what },
      );
    }
    if ("exit" in result) throw this.#exited(what, result.exit);
    return result.value;
  }

  #exited(what: string, exit: AgentExit): AgentFailedError {
    if (this.#stoppedForCancel !== null) {
      // A person's cancel, not the agent's failure: nothing of its stderr is quoted.
      return this.#failure(this.#stoppedForCancel(what), "", exit, undefined, false);
    }
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code}`;
    return this.#failure(`${how} during ${what}`, "", exit, { step: what });
  }

  /** The agent answered with an error: its words, or the sign-in it wants. */
  #refusal(what: string, error: acp.RequestError): Error {
    this.#refusedWords = words(error.message);
    // -32000: the agent's "authentication required" (to `authenticate` itself: a refusal).
    if (error.code === -32000 && what !== "authenticate") {
      const methods = this.#facts?.authMethods ?? [];
      const ways = signInWays(methods, {
        agentName: this.#options.agentName,
        agentCommand: this.#options.agentCommand,
      });
      const why = this.#authRefusal === null
        ? error.message
        : `${error.message}; ${this.#authRefusal}`;
      const agentName = this.#options.agentName;
      const known = knownFailure({
        agent: agentName,
        command: this.#options.agentCommand ?? [agentName],
        step: what,
        code: error.code,
        message: error.message,
        data: error.data,
        stderrTail: this.stderrTail(),
      });
      const message = signInText(agentName, what, why, ways);
      return new AgentSignInRequiredError(
        known ? cutText(`${known}\n\n${message}`, AGENT_LIMITS.maxReasonChars) : message,
        methods,
        ways,
      );
    }
    return this.#failure(
      `refused ${what}: ${words(error.message)}${detail(error.data)}`,
      "",
      null,
      { step: what, error },
    );
  }

  /**
   * An {@linkcode AgentFailedError} naming the agent and what happened. When
   * `cause` names the step (and the agent's error) of a failure Sync knows
   * (`known_failure.ts`), the message starts with the sentence that says the
   * cause and the fix; otherwise it ends with the last line the agent wrote
   * on stderr (when `quote`), cut short. The whole of its stderr's end, as
   * plain text (`stderr_text.ts`), is kept beside the message
   * (`stderrTail`), where Chat shows it.
   */
  #failure(
    what: string,
    hint: string,
    exit: AgentExit | null = this.#exit,
    cause?: { step: string; error?: acp.RequestError },
    quote = true,
  ): AgentFailedError {
    const stderrTail = this.stderrTail();
    const agentName = this.#options.agentName;
    const known = cause
      ? knownFailure({
        agent: agentName,
        command: this.#options.agentCommand ?? [agentName],
        step: cause.step,
        code: cause.error?.code,
        message: cause.error?.message,
        data: cause.error?.data,
        stderrTail,
      })
      : null;
    const code = cause?.error?.code;
    const last = lastLine(stderrTail, LAST_LINE_CHARS);
    const said = known || !quote
      ? ""
      : last === null
      ? ": it wrote nothing on stderr"
      : `; the last line it wrote on stderr: ${last}`;
    return new AgentFailedError(
      `${known ? `${known}\n\n` : ""}The agent ${agentName} ${what}${hint}${said}`,
      { stderrTail, exit, ...(code !== undefined ? { code } : {}) },
    );
  }
}

/** Words the agent gave (an error's message, a sign-in method), cut to what a session's state keeps. */
function words(text: string): string {
  return cutText(text, AGENT_LIMITS.maxAgentWordsChars);
}

/** The data of an agent's error, when it says more than the message. */
function detail(data: unknown): string {
  if (data === undefined || data === null) return "";
  const text = typeof data === "string" ? data : JSON.stringify(data);
  return text === "{}" ? "" : ` (${cutText(text, 2_000)})`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** Lets messages already read from the agent finish their way through the SDK's handlers. */
function settled(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
