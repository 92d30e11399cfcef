/**
 * The agents a session can be begun with: `GET /api/agents` lists them (the
 * presets, the demo agent, and a person's own, never the values of their
 * environment); `POST /api/agents` `{ name, command, args?, env? }` adds or
 * replaces a person's definition; `POST /api/agents/:name/env`
 * `{ name, value }` sets one variable of an agent's environment (a key a
 * sign-in reads: a preset stays a preset), or removes it (`value: null`),
 * answering the list, which names the variable and never shows its value;
 * `POST /api/agents/:name/remove` removes a person's definition, bringing
 * back a preset it replaced, or, for a preset, the variables kept beside it
 * (answering which, by name); a preset with none is refused (409), there
 * being nothing to remove.
 *
 * @module
 */
import { Hono } from "hono";
import {
  addAgent,
  type AgentReadiness,
  agentReadiness,
  listAgents,
  type ListedAgent,
  listSessions,
  removeAgent,
  setAgentEnv,
} from "../../agents/mod.ts";
import { InvalidInputError } from "../../errors.ts";
import { parseAgentDefinition } from "../../agents/mod.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import type { AgentDefinitionView, AgentsResponse } from "./chat_types.ts";

/**
 * The agents' routes, to mount at `/api/agents`.
 *
 * @param kv The installation's KV.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function agentRoutes(kv: Deno.Kv): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => c.json(await agentsResponse(kv)));
  routes.post("/", async (c) => {
    const body = await jsonObjectBody(
      c,
      '{ "name": "<name>", "command": "<program>", "args": ["…"], "env": { "NAME": "value" } }',
    );
    await addAgent(kv, parseAgentDefinition(body));
    return c.json(await agentsResponse(kv));
  });
  routes.post("/:name/env", async (c) => {
    const body = await jsonObjectBody(c, '{ "name": "OPENAI_API_KEY", "value": "…" | null }');
    const { name, value } = body;
    if (typeof name !== "string" || name === "") {
      throw new InvalidInputError('"name": required: the variable, such as OPENAI_API_KEY');
    }
    if (value !== null && (typeof value !== "string" || value === "")) {
      throw new InvalidInputError(`"value": the variable's value, or null to remove ${name}`);
    }
    await setAgentEnv(kv, c.req.param("name"), name, value);
    return c.json(await agentsResponse(kv));
  });
  routes.post("/:name/remove", async (c) => {
    const { definition, envNames } = await removeAgent(kv, c.req.param("name"));
    return c.json({ ...await agentsResponse(kv), removed: { definition, envNames } });
  });
  return routes;
}

async function agentsResponse(kv: Deno.Kv): Promise<AgentsResponse> {
  const sessions = await listSessions(kv);
  const where = { path: ownEnv("PATH"), home: ownEnv("HOME") };
  return {
    agents: await Promise.all(
      (await listAgents(kv)).map(async (agent) =>
        viewOf(agent, await agentReadiness(agent, sessions, where))
      ),
    ),
  };
}

/** One of Sync's own environment variables, or undefined when it may not be read. */
function ownEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

function viewOf(agent: ListedAgent, readiness: AgentReadiness): AgentDefinitionView {
  return {
    readiness,
    name: agent.name,
    command: agent.command,
    args: agent.args,
    envNames: Object.keys(agent.env).sort(),
    origin: agent.origin,
    about: agent.about,
  };
}
