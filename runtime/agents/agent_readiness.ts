/**
 * Whether an agent can be begun with now, as far as Sync can tell without
 * starting it: its program is there (looked for where Sync would look for
 * it), and it is not waiting for a person to sign in (its newest
 * conversation says so). What Sync cannot tell — a preset's account, the
 * network — is learned when it starts, and said then.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import type { AgentSession } from "../agent_session.ts";
import { findProgram } from "../supervisor/mod.ts";
import type { ListedAgent } from "./agent_definitions.ts";

/** Where an agent stands, for a person choosing one. */
export interface AgentReadiness {
  /**
   * `ready`: its program is there; `not-installed`: a program named on PATH
   * is not found; `command-not-found`: the path its definition gives is not
   * a program; `needs-sign-in`: its newest conversation waits for a person
   * to sign in to it.
   */
  state: "ready" | "not-installed" | "command-not-found" | "needs-sign-in";
  /** Why it is not ready, in words, naming it; absent when it is. */
  why?: string;
  /** What to do about it, in words; absent when it is ready. */
  todo?: string;
}

/** Options of {@linkcode agentReadiness}. */
export interface AgentReadinessOptions {
  /** Sync's own `PATH`, where a program's name is looked for. */
  path: string | undefined;
  /** Sync's own `HOME`: its `.local/bin` is looked in after `PATH`. */
  home: string | undefined;
}

/**
 * Where an agent stands: its program looked for, and its newest
 * conversation's wait for a sign-in.
 *
 * @param agent The agent, as listed.
 * @param sessions The installation's sessions (any project): the agent's newest tells of a sign-in.
 * @param options Where programs are looked for.
 */
export async function agentReadiness(
  agent: ListedAgent,
  sessions: readonly AgentSession[],
  options: AgentReadinessOptions,
): Promise<AgentReadiness> {
  const { command } = agent;
  const named = !command.includes("/");
  // A relative path is taken from the project the agent starts in: only a start can tell.
  if (named || isAbsolute(command)) {
    try {
      await findProgram(command, options.path, "/", { home: options.home });
    } catch {
      return named
        ? {
          state: "not-installed",
          why: `${agent.name}'s program ${command} is not installed (or not on PATH)`,
          todo: `To use it, ${agent.install}`,
        }
        : {
          state: "command-not-found",
          why: `${agent.name}'s command ${command} is not a program on this computer`,
          todo: `Check the command in its definition, under Agents on the start page ` +
            `(sync agents add ${agent.name} --command <program>)`,
        };
    }
  }
  let newest: AgentSession | null = null;
  for (const session of sessions) {
    if (session.agent !== agent.name) continue;
    if (newest === null || session.updatedAt > newest.updatedAt) newest = session;
  }
  if (newest?.state === "waiting" && newest.waitingFor?.kind === "sign-in") {
    return {
      state: "needs-sign-in",
      why: `${agent.name} asked to be signed in, in the conversation “${newest.title}”`,
      todo: "Sign in as that conversation says, then press Continue there",
    };
  }
  return { state: "ready" };
}
