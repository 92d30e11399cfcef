/**
 * The pointers of agent sessions, kept in the installation: which agent, in
 * which project, the agent's own session id, the order it performs, who
 * asked for it and where it has got to. A pointer is made once, with an
 * atomic check that none exists (so two processes never start the same
 * order), and changed only through {@linkcode updateSession}, which refuses a
 * change to what is set when the work is ordered: its source above all.
 *
 * @module
 */
import type { AgentSession, AgentSessionState } from "../agent_session.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { agentSessionKey, agentSessionsPrefix } from "./keys.ts";

/** The fields set when a session is begun and never changed. */
const FIXED: readonly (keyof AgentSession)[] = [
  "key",
  "project",
  "agent",
  "orderKey",
  "extensionId",
  "extensionName",
  "source",
  "onInterrupted",
  "createdAt",
];

/**
 * Writes a new pointer, only if the session has none yet.
 *
 * @param kv The installation's KV.
 * @param session The pointer.
 * @returns True when written; false when a pointer with its key was there
 *   already (another process, or an earlier start, began it).
 */
export async function createSession(kv: Deno.Kv, session: AgentSession): Promise<boolean> {
  const key = agentSessionKey(session.project, session.key);
  const result = await kv.atomic().check({ key, versionstamp: null }).set(key, session).commit();
  return result.ok;
}

/**
 * Reads a pointer.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @returns The pointer, or null when there is none.
 */
export async function readSession(
  kv: Deno.Kv,
  project: string,
  key: string,
): Promise<AgentSession | null> {
  return (await kv.get<AgentSession>(agentSessionKey(project, key))).value;
}

/**
 * The state of a session, for `work.state()`.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The order's key.
 * @returns Its state, or null while nothing has begun performing it.
 */
export async function readSessionState(
  kv: Deno.Kv,
  project: string,
  key: string,
): Promise<AgentSessionState | null> {
  return (await readSession(kv, project, key))?.state ?? null;
}

/**
 * Every pointer of a project, or of every project.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder; every project when absent.
 */
export async function listSessions(kv: Deno.Kv, project?: string): Promise<AgentSession[]> {
  const sessions: AgentSession[] = [];
  for await (const entry of kv.list<AgentSession>({ prefix: agentSessionsPrefix(project) })) {
    sessions.push(entry.value);
  }
  return sessions;
}

/**
 * Which of these order keys have a pointer in the project.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param keys Order keys.
 * @returns The keys that have one.
 */
export async function sessionsThatExist(
  kv: Deno.Kv,
  project: string,
  keys: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  // getMany reads at most 10 keys at once; the reads are made together, not
  // one after another, since an outbox keeps every order ever placed.
  const reads: Promise<void>[] = [];
  for (let at = 0; at < keys.length; at += 10) {
    const batch = keys.slice(at, at + 10);
    reads.push(
      kv.getMany<AgentSession[]>(batch.map((key) => agentSessionKey(project, key))).then(
        (entries) =>
          entries.forEach((entry, i) => {
            if (entry.versionstamp !== null) found.add(batch[i]);
          }),
      ),
    );
  }
  await Promise.all(reads);
  return found;
}

/**
 * Changes a pointer: `change` is given the pointer as stored and answers
 * the new one, or null to leave it. Retried when another writer changed it
 * meanwhile.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved folder.
 * @param key The session's key.
 * @param change What to make of it.
 * @returns The pointer as written (or as it is, when `change` left it).
 * @throws {NotFoundError} when there is no such session.
 * @throws {ConflictError} when the change would alter what was set when the
 *   work was ordered (its source, its order, its extension, its agent, …).
 */
export async function updateSession(
  kv: Deno.Kv,
  project: string,
  key: string,
  change: (session: AgentSession) => AgentSession | null,
): Promise<AgentSession> {
  const entryKey = agentSessionKey(project, key);
  for (let attempt = 0;; attempt++) {
    const current = await kv.get<AgentSession>(entryKey);
    if (current.value === null) {
      throw new NotFoundError(`There is no session ${key} in ${project}`);
    }
    const next = change(structuredClone(current.value));
    if (next === null) return current.value;
    for (const field of FIXED) {
      if (JSON.stringify(next[field]) !== JSON.stringify(current.value[field])) {
        throw new ConflictError(
          `The session ${key}'s ${field} cannot be changed: it is set when the work is ordered, ` +
            `and never edited`,
        );
      }
    }
    const result = await kv.atomic().check(current).set(entryKey, next).commit();
    if (result.ok) return next;
    if (attempt >= 20) {
      throw new ConflictError(`The session ${key} kept changing while it was written; try again`);
    }
  }
}
