/**
 * How the host learns what it cannot read itself, since agents and sessions
 * sit above it: where a piece of work stands (the session performing it, and
 * why it failed), and which agents an order may name.
 *
 * @module
 */
import { listAgents, readSession } from "../agents/mod.ts";
import type { WorkStateReader } from "../host/mod.ts";
import type { DefinedAgents } from "../work/mod.ts";

/**
 * Reads where an order's work stands from the pointer of the session
 * performing it: its state, and the reason it gives when it failed or was
 * interrupted.
 *
 * @param kv The installation's KV.
 */
export function sessionWorkState(kv: Deno.Kv): WorkStateReader {
  return async (project, key) => {
    const session = await readSession(kv, project, key);
    if (!session) return null;
    const reason = session.error?.message;
    return { state: session.state, ...(reason ? { reason } : {}) };
  };
}

/**
 * The names of the agents the installation defines now: a person's own, the
 * presets and the demo agent.
 *
 * @param kv The installation's KV.
 */
export function definedAgents(kv: Deno.Kv): DefinedAgents {
  return async () => (await listAgents(kv)).map((agent) => agent.name);
}
