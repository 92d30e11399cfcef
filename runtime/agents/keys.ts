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
