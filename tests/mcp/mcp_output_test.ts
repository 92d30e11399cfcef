import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpEndpoint } from "../../runtime/mcp/mod.ts";
import { validateManifest } from "../../runtime/packages/mod.ts";
import { createApp } from "../../runtime/web/app.ts";
import { type PackageSpec, testHost } from "../internal/packages.ts";
import { toolText } from "./_scenario.ts";

const TOKEN = "installation-token-for-tests";

/** What `shaped.count` declares it answers. */
const COUNT_OUTPUT = {
  type: "object",
  properties: { count: { type: "integer" }, of: { type: "string" } },
  required: ["count", "of"],
  additionalProperties: false,
};

/**
 * A package with a handler that declares its answer's shape, one that
 * answers outside the shape it declares, and one that declares none.
 */
const SHAPED: PackageSpec = {
  id: "shaped",
  handlers: ["shaped.count", "shaped.wrong", "shaped.plain", "shaped.list"],
  service: `export default function register() {
  return {
    "shaped.count": ({ of }) => ({ count: of.length, of }),
    "shaped.wrong": () => ({ count: "many", of: "x" }),
    "shaped.plain": () => ({ said: "hello" }),
    "shaped.list": () => [1, 2],
  };
}
`,
  manifest: {
    handlers: {
      "shaped.count": {
        description: "Counts characters",
        agent: {
          description: "Count the characters of a text",
          input: { type: "object", properties: { of: { type: "string" } }, required: ["of"] },
          output: COUNT_OUTPUT,
        },
      },
      "shaped.wrong": {
        description: "Answers outside its shape",
        agent: {
          description: "Answer a count that is not one",
          input: { type: "object", properties: {} },
          output: COUNT_OUTPUT,
        },
      },
      "shaped.plain": {
        description: "Answers an object, declaring no shape",
        agent: { description: "Say hello", input: { type: "object", properties: {} } },
      },
      "shaped.list": {
        description: "Answers a list, declaring no shape",
        agent: { description: "List two numbers", input: { type: "object", properties: {} } },
      },
    },
  },
};

Deno.test("a handler tool that declares `agent.output` lists an output schema and answers structured content", async (t) => {
  const env = await testHost();
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const app = createApp(env.host, { token: TOKEN, port: server.addr.port, mcp });
  const client = new Client({ name: "output-test", version: "1.0.0" });
  try {
    await env.install(SHAPED);
    const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
    url.searchParams.set("project", env.project);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );

    await t.step(
      "tools/list shows the declared shape as outputSchema, and none otherwise",
      async () => {
        const { tools } = await client.listTools();
        const count = tools.find((tool) => tool.name === "shaped_count");
        assert.equal(count?.outputSchema?.type, "object");
        assert.deepEqual(count?.outputSchema?.required, ["count", "of"]);
        assert.equal(
          (count?.outputSchema?.properties as Record<string, { type: string }>).count.type,
          "integer",
        );
        assert.equal(tools.find((tool) => tool.name === "shaped_plain")?.outputSchema, undefined);
      },
    );

    await t.step("the answer comes as structuredContent and as its JSON in text", async () => {
      const result = await client.callTool({ name: "shaped_count", arguments: { of: "four" } });
      assert.notEqual(result.isError, true, toolText(result));
      assert.deepEqual(result.structuredContent, { count: 4, of: "four" });
      assert.deepEqual(JSON.parse(toolText(result)), { count: 4, of: "four" });
    });

    await t.step("an answer outside the declared shape is a tool error naming where", async () => {
      const result = await client.callTool({ name: "shaped_wrong", arguments: {} });
      assert.equal(result.isError, true);
      assert.equal(result.structuredContent, undefined);
      assert.match(toolText(result), /count/);
      assert.match(toolText(result), /structured content/i);
    });

    await t.step(
      "an object answer without a declared shape comes structured too; a list does not",
      async () => {
        const plain = await client.callTool({ name: "shaped_plain", arguments: {} });
        assert.deepEqual(plain.structuredContent, { said: "hello" });
        assert.deepEqual(JSON.parse(toolText(plain)), { said: "hello" });
        const list = await client.callTool({ name: "shaped_list", arguments: {} });
        assert.equal(list.structuredContent, undefined);
        assert.deepEqual(JSON.parse(toolText(list)), [1, 2]);
      },
    );
  } finally {
    await client.close();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});

Deno.test("`validateManifest()` refuses an `agent.output` that is not an object schema, saying why", () => {
  const manifest = {
    id: "shaped",
    name: "Shaped",
    version: "1.0.0",
    description: "Shapes",
    permissions: ["background"],
    service: "service/index.js",
    handlers: {
      "shaped.list": {
        description: "Lists",
        agent: {
          description: "List",
          input: { type: "object", properties: {} },
          output: { type: "array", items: { type: "number" } },
        },
      },
    },
  };
  assert.throws(
    () => validateManifest(manifest, "shaped"),
    (error: Error) => {
      assert.match(error.message, /handlers\["shaped\.list"\]\.agent\.output\.type/);
      assert.match(error.message, /MCP takes a tool's structured answer as an object/);
      return true;
    },
  );
});
