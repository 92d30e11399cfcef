import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpEndpoint } from "../../runtime/mcp/mod.ts";
import { createApp } from "../../runtime/web/app.ts";
import { type PackageSpec, testHost } from "../internal/packages.ts";
import { toolText } from "./_scenario.ts";

const TOKEN = "installation-token-for-tests";

/** Patterns that take a backtracking engine exponential time on a near-miss. */
const PROBE: PackageSpec = {
  id: "probe",
  handlers: ["probe.word", "probe.answer"],
  service: `export default function register() {
  return {
    "probe.word": ({ w }) => ({ w }),
    "probe.answer": () => ({ v: "${"a".repeat(28)}!" }),
  };
}
`,
  manifest: {
    handlers: {
      "probe.word": {
        description: "Takes a word",
        agent: {
          description: "Take a word",
          input: {
            type: "object",
            properties: { w: { type: "string", pattern: "^([a-z]+)+$" } },
            required: ["w"],
          },
        },
      },
      "probe.answer": {
        description: "Answers a near-miss",
        agent: {
          description: "Answer",
          input: { type: "object", properties: {} },
          output: {
            type: "object",
            properties: { v: { type: "string", pattern: "^(a+)+$" } },
            required: ["v"],
          },
        },
      },
    },
  },
};

/** A package whose linked manifest is edited, after install, to an `agent.output` 45,000 deep. */
const DEEP: PackageSpec = {
  id: "deep",
  handlers: ["deep.run"],
  service: `export default function register() { return { "deep.run": () => ({}) }; }`,
  manifest: {
    handlers: {
      "deep.run": {
        description: "Runs",
        agent: { description: "Run", input: { type: "object", properties: {} } },
      },
    },
  },
};

Deno.test("a handler tool's schema is checked in linear time, and one bad schema hides no other tool", async (t) => {
  const env = await testHost();
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => app.fetch(request),
  );
  const app = createApp(env.host, { token: TOKEN, port: server.addr.port, mcp });
  const client = new Client({ name: "schema-test", version: "1.0.0" });
  try {
    await env.install(PROBE);
    const deep = await env.install(DEEP);
    const manifest = await Deno.readTextFile(join(deep, "manifest.json"));
    const levels = 45_000;
    await Deno.writeTextFile(
      join(deep, "manifest.json"),
      manifest.replace(
        /"input":/,
        `"output": {"type":"object","properties":{"a":${'{"not":'.repeat(levels)}{}${
          "}".repeat(levels)
        }}}, "input":`,
      ),
    );
    const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
    url.searchParams.set("project", env.project);
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );

    await t.step("tools/list answers, with every other package's tools", async () => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      assert.ok(names.includes("probe_word"), names.join(", "));
      assert.ok(names.includes("probe_answer"), names.join(", "));
      assert.ok(!names.includes("deep_run"), names.join(", "));
      const word = tools.find((tool) => tool.name === "probe_word");
      assert.deepEqual(word?.inputSchema.properties, {
        w: { type: "string", pattern: "^([a-z]+)+$" },
      });
    });

    await t.step("the probe's input is refused, while another request is answered", async () => {
      const call = client.callTool({
        name: "probe_word",
        arguments: { w: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" },
      });
      const agents = await app.request(`http://127.0.0.1:${server.addr.port}/api/agents`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(agents.status, 200);
      await agents.body?.cancel();
      const result = await call;
      assert.equal(result.isError, true);
      assert.match(toolText(result), /must match pattern/);
      assert.match(toolText(result), /\bw\b/);
    });

    await t.step("a word that fits the pattern is taken", async () => {
      const result = await client.callTool({ name: "probe_word", arguments: { w: "abc" } });
      assert.notEqual(result.isError, true, toolText(result));
      assert.deepEqual(result.structuredContent, { w: "abc" });
    });

    await t.step("the probe's answer is refused against the output schema", async () => {
      const result = await client.callTool({ name: "probe_answer", arguments: {} });
      assert.equal(result.isError, true);
      assert.match(toolText(result), /structured content/i);
      assert.match(toolText(result), /must match pattern/);
    });
  } finally {
    await client.close();
    await mcp.close();
    await server.shutdown();
    await env.close();
  }
});
