/**
 * A sign-in method an agent lists in its `initialize` answer
 * (`authMethods`), as Sync keeps it: which of them a person signs in with
 * by running a command in a terminal, and which read environment variables
 * — the key Chat asks for with a form, and with which Sync calls
 * `authenticate` itself once the agent's environment sets it.
 *
 * Three kinds (the method's `type`): `terminal` (run the agent's program
 * with `args` and `env`), `env_var` (the variables in `vars`; codex-acp
 * lists its keys so), and the agent's own (no `type`). An agent's own
 * method reads variables when its description names them ("Requires setting
 * the `GEMINI_API_KEY` environment variable"), or when it is one of the
 * methods Sync knows by id ({@linkcode KNOWN_KEY_METHODS}).
 *
 * @module
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentAuthMethod } from "./agent_errors.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";

/** A sign-in method as the agent lists it, in the ACP SDK's types (plain JSON). */
export type ListedAuthMethod = acp.AuthMethod;

/** A variable's name as a definition's env takes it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The agents' own methods (no `type`) that read a key from the environment
 * without naming it, by method id, with the variables each reads. From the
 * pinned adapters' sources:
 *
 * - `gemini-api-key` — Gemini CLI 0.61.0 ("Gemini API key", "Use an API key
 *   with Gemini Developer API"); it reads `GEMINI_API_KEY`
 *   (`validateAuthMethod` in `packages/cli/src/config/auth.ts`, bundled in
 *   `@google/gemini-cli/bundle/chunk-*.js`).
 *
 * Left out: Gemini CLI's `vertex-ai` reads either `GOOGLE_API_KEY` or both
 * `GOOGLE_CLOUD_PROJECT` and `GOOGLE_CLOUD_LOCATION`, which one form of
 * variables, all needed, cannot say; its `oauth-personal` and `gateway`,
 * and claude-agent-acp 0.23.1's `claude-login` (a terminal method) and
 * `gateway` ("Custom model gateway"), read no key. codex-acp 0.16.0 lists
 * its keys as `env_var` methods, which need no entry here.
 */
export const KNOWN_KEY_METHODS: ReadonlyMap<string, readonly string[]> = new Map([
  ["gemini-api-key", ["GEMINI_API_KEY"]],
]);

/**
 * A method as the agent listed it, as Sync keeps it.
 *
 * @param method One of the agent's `authMethods`, as plain JSON.
 * @returns Its id, name and words; a terminal method's arguments; the
 *   variables a method reads.
 */
export function authMethodOf(method: ListedAuthMethod): AgentAuthMethod {
  const raw = method as unknown as Record<string, unknown>;
  const out: AgentAuthMethod = { id: method.id, name: method.name };
  if (method.description) out.description = method.description;
  if (typeof raw.link === "string" && /^https?:\/\//.test(raw.link)) out.link = raw.link;
  if (raw.type === "terminal") {
    const terminal = method as acp.AuthMethodTerminal;
    out.terminal = { args: terminal.args ?? [], env: terminal.env ?? {} };
  } else if (raw.type === "env_var" && Array.isArray(raw.vars)) {
    out.envVars = [];
    for (const v of raw.vars as unknown[]) {
      if (typeof v !== "object" || v === null) continue;
      const { name, label, optional } = v as Record<string, unknown>;
      if (typeof name !== "string" || !ENV_NAME.test(name)) continue;
      out.envVars.push({
        name,
        ...(typeof label === "string" && label !== "" ? { label } : {}),
        ...(optional === true ? { optional: true } : {}),
      });
    }
  } else if (raw.type === undefined) {
    const named = method.description ? variablesNamedIn(method.description) : [];
    const known = named.length > 0 ? named : KNOWN_KEY_METHODS.get(method.id) ?? [];
    if (known.length > 0) out.envVars = known.map((name) => ({ name }));
  }
  return out;
}

/** The variables a description names in backquotes when it speaks of an environment variable. */
function variablesNamedIn(description: string): string[] {
  if (!/environment variable/i.test(description)) return [];
  const names = [...description.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]);
  return [...new Set(names)].slice(0, AGENT_LIMITS.maxSignInWays);
}
