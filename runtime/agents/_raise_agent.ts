/**
 * Raising a session's agent: its definition read, its program started in
 * the project folder (counted for whose work it is), its ACP session made
 * new or loaded again, and what its process does tracked meanwhile. Private
 * to the agents folder: the work performer's (`work_performer.ts`).
 *
 * @module
 */
import { type AgentSession, orderingExtension } from "../agent_session.ts";
import type { SyncEvent } from "../sync_event.ts";
import { describeError } from "../internal/describe_error.ts";
import type { SessionLimits } from "../limits.ts";
import { type PermissionAnswer, type PermissionRequest, startAcpSession } from "./acp_session.ts";
import { ActivityTracker, watchedPeer } from "./activity_tracker.ts";
import { listAgents, readAgent } from "./agent_definitions.ts";
import { AgentFailedError, AgentSignInRequiredError } from "./agent_errors.ts";
import type { AgentLauncher, McpOffer, McpServersFor } from "./agent_launcher.ts";
import type { AgentPeer } from "./agent_peer.ts";
import { type NpmRunner, npmRunner, withFetchLog } from "./npm_fetch.ts";
import type { AgentCommand } from "./spawn_agent.ts";
import { transcriptText } from "./transcript_text.ts";
import { type LiveSession, missingProgram } from "./_live_session.ts";
import type { SessionWrites } from "./_session_writes.ts";

/** What raising an agent is given by the work performer. */
export interface RaiseAgentOptions {
  /** The installation's KV, where agents are defined. */
  kv: Deno.Kv;
  /** Where `activity` facts are told. */
  publish: (event: SyncEvent) => void;
  /** The host's clock, in ms. */
  now: () => number;
  /** Starts an agent's program. */
  launch: AgentLauncher;
  /** The MCP servers a session is offered. */
  mcpServersFor: McpServersFor;
  /** True when Sync's own environment sets a variable, not empty. */
  envHas: (name: string) => boolean;
  /** How long an agent may take to answer `initialize`. */
  initializeTimeoutMs: number | undefined;
  /** How long an agent may take to answer `session/new` or `session/load`. */
  sessionTimeoutMs: number | undefined;
  /** How long a cancelled turn may go on before the agent's process is stopped. */
  cancelGraceMs: number | undefined;
  /** The bounds of what is kept of a session (the seed of a new session among them). */
  limits: SessionLimits;
  /** Where the session's pointer changes and transcript entries go. */
  writes: SessionWrites;
  /** True once Sync is stopping. */
  stopping: () => boolean;
  /** Keeps a background task, so that stopping waits for it. */
  track: (task: Promise<unknown>) => void;
  /** A session whose agent ended by itself between turns: it may leave memory. */
  idle: (live: LiveSession) => void;
  /** A permission the agent asks, answered by a person. */
  ask: (
    live: LiveSession,
    request: PermissionRequest,
    signal: AbortSignal,
  ) => Promise<PermissionAnswer>;
}

/**
 * Raises the session's agent: a new session, or the agent's own loaded
 * again (`session/load`) when it can, else a new one seeded with the
 * stored transcript. `opening` is set while it goes.
 *
 * @param live The session.
 * @param mode `new` for a session the agent never had, `resume` to go on with one.
 * @param options What the performer gives.
 * @throws {AgentFailedError} when the agent cannot start or answer.
 * @throws {AgentSignInRequiredError} when the agent needs a sign-in.
 */
export async function raiseAgent(
  live: LiveSession,
  mode: "new" | "resume",
  options: RaiseAgentOptions,
): Promise<void> {
  live.opening = true;
  try {
    await raise(live, mode, options);
  } finally {
    live.opening = false;
  }
}

/** {@linkcode raiseAgent}, while `opening` is set. */
async function raise(
  live: LiveSession,
  mode: "new" | "resume",
  options: RaiseAgentOptions,
): Promise<void> {
  const { kv, writes } = options;
  const pointer = live.pointer;
  try {
    const definition = await readAgent(kv, pointer.agent);
    if (!definition) {
      const names = (await listAgents(kv)).map((a) => a.name).join(", ");
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
    const activity = trackActivity(live, runner, options);
    let peer: AgentPeer;
    try {
      peer = watchedPeer(
        await options.launch(command, {
          cwd: pointer.project,
          owner: ownerOf(pointer),
          onStderr: (text) => activity.stderr(text),
        }),
        activity,
      );
    } catch (error) {
      throw missingProgram(definition, error);
    }
    if (options.stopping()) {
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
      askPermission: (request, signal) => options.ask(live, request, signal),
      onEntry: (entry) => writes.entry(live, entry),
      mcpServers: async (facts) => {
        offer ??= await options.mcpServersFor(live.pointer, facts);
        return offer.servers;
      },
      agentCommand: [definition.command, ...definition.args],
      envHas: (name) =>
        (Object.hasOwn(definition.env, name) && definition.env[name] !== "") ||
        (!name.startsWith("SYNC_") && options.envHas(name)),
      signsOfLife: activity,
      initializeTimeoutMs: options.initializeTimeoutMs,
      sessionTimeoutMs: options.sessionTimeoutMs,
      cancelGraceMs: options.cancelGraceMs,
      now: () => new Date(options.now()),
      cancelled: raising.signal,
    });
    live.acp = acp;
    live.peer = null;
    live.raising = null;
    activity.ready();
    acp.exited.then(() => {
      // Stopping waits for it: a token must not outlive its agent.
      const released = offer?.release?.().catch(() => {});
      if (released) options.track(released);
      // Between turns the agent may end by itself: the next turn raises it again.
      if (live.acp === acp && !live.working) {
        live.acp = null;
        if (!options.stopping()) options.idle(live);
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
      const earlier = transcriptText(live.writer.transcript.entries, options.limits.maxSeedChars);
      live.seed = earlier.trim() === "" ? null : earlier;
    }
    await writes.change(live, { agentSessionId: sessionId });
  } catch (error) {
    live.peer = null;
    live.raising = null;
    if (!(error instanceof AgentSignInRequiredError) && !options.stopping()) {
      writes.entry(live, {
        at: new Date(options.now()).toISOString(),
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
 * A new tracker of what the session's agent process is doing, shown at
 * once as `starting`; it replaces the tracker of an earlier process.
 */
function trackActivity(
  live: LiveSession,
  runner: NpmRunner | null,
  options: Pick<RaiseAgentOptions, "now" | "publish">,
): ActivityTracker {
  live.activity?.rest();
  const { project, key } = live.pointer;
  const tracker = new ActivityTracker({
    runner,
    now: options.now,
    publish: (activity) =>
      options.publish({ type: "activity", project, sessionKey: key, activity }),
  });
  live.activity = tracker;
  tracker.show("starting");
  return tracker;
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
