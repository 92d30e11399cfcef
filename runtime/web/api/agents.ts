/**
 * The agents a session can be begun with: `GET /api/agents` lists them (the
 * presets, the demo agent, and a person's own, never the values of their
 * environment); `POST /api/agents` `{ name, command, args?, env? }` adds or
 * replaces a person's definition; `POST /api/agents/:name/remove` removes
 * one, bringing back a preset it replaced (a preset itself is refused).
 *
 * @module
 */
import { Hono } from "hono";
import { addAgent, listAgents, type ListedAgent, removeAgent } from "../../agents/mod.ts";
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
  routes.post("/:name/remove", async (c) => {
    await removeAgent(kv, c.req.param("name"));
    return c.json(await agentsResponse(kv));
  });
  return routes;
}

async function agentsResponse(kv: Deno.Kv): Promise<AgentsResponse> {
  return { agents: (await listAgents(kv)).map(viewOf) };
}

function viewOf(agent: ListedAgent): AgentDefinitionView {
  return {
    name: agent.name,
    command: agent.command,
    args: agent.args,
    envNames: Object.keys(agent.env).sort(),
    origin: agent.origin,
    about: agent.about,
  };
}
