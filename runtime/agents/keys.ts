/**
 * Every Deno KV key the agents domain writes in the installation: the agent
 * definitions a person added, the pointers of agent sessions, and their
 * transcripts (one entry per transcript entry, by its place in the whole
 * transcript). Keys are built here and nowhere else, so their shapes — which
 * data already stored must keep matching — can be read in one place.
 *
 * @module
 */

const AGENT = "agent";
const AGENT_SESSION = "agent_session";
const AGENT_TRANSCRIPT = "agent_transcript";
const AGENT_ENV = "agent_env";
const AGENT_PENDING = "agent_pending";

/**
 * Key of an agent definition a person added (or a preset they replaced).
 *
 * @param name The agent's name, such as `claude-code`.
 */
export function agentDefinitionKey(name: string): Deno.KvKey {
  return [AGENT, name];
}

/** Prefix of every agent definition a person added, by name. */
export function agentDefinitionsPrefix(): Deno.KvKey {
  return [AGENT];
}

/**
 * Key of a session's pointer.
 *
 * @param project The project's resolved folder.
 * @param key The session's key: the order's key, or `chat-<id>`.
 */
export function agentSessionKey(project: string, key: string): Deno.KvKey {
  return [AGENT_SESSION, project, key];
}

/**
 * Prefix of the session pointers of one project, or of every project.
 *
 * @param project The project's resolved folder; every project's when absent.
 */
export function agentSessionsPrefix(project?: string): Deno.KvKey {
  return project === undefined ? [AGENT_SESSION] : [AGENT_SESSION, project];
}

/**
 * Key of one stored transcript entry.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param index The entry's place in the whole transcript, dropped entries counted.
 */
export function transcriptEntryKey(project: string, key: string, index: number): Deno.KvKey {
  return [AGENT_TRANSCRIPT, project, key, index];
}

/**
 * Prefix of a session's stored transcript, oldest first.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 */
export function transcriptPrefix(project: string, key: string): Deno.KvKey {
  return [AGENT_TRANSCRIPT, project, key];
}

/**
 * Key of the variables a person gave a preset (or the demo agent) without
 * replacing it, such as a key saved from a sign-in.
 *
 * @param name The agent's name.
 */
export function agentEnvKey(name: string): Deno.KvKey {
  return [AGENT_ENV, name];
}

/**
 * Key of one part of a session's pending turn (a person's message not sent
 * to the agent yet), in the order they were sent.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param id The pending turn's id.
 * @param part The part's place: a long message is kept in several.
 */
export function pendingTurnKey(project: string, key: string, id: string, part: number): Deno.KvKey {
  return [AGENT_PENDING, project, key, id, part];
}

/**
 * Prefix of a session's pending turns, or of one of them.
 *
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param id One pending turn's id; all of them when absent.
 */
export function pendingTurnsPrefix(project: string, key: string, id?: string): Deno.KvKey {
  return id === undefined ? [AGENT_PENDING, project, key] : [AGENT_PENDING, project, key, id];
}
