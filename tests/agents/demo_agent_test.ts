/**
 * The demo agent driven by the SDK's own client, with nothing of Sync's in
 * between: it is an ACP agent in its own right, not one that only Sync's
 * session understands.
 */
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { demoAgentCommand } from "../../runtime/agents/mod.ts";

Deno.test("the demo agent answers the SDK's own client over stdio", async (t) => {
  const project = await Deno.makeTempDir({ prefix: "sync-demo-" });
  const { command, args } = demoAgentCommand();
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: project,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const asked: acp.RequestPermissionRequest[] = [];
  try {
    await acp.client({ name: "test" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId: "allow" } };
      })
      .connectWith(acp.ndJsonStream(child.stdin, child.stdout), async (ctx) => {
        const init = await ctx.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {},
        });
        await t.step("initialize advertises loadSession and MCP over HTTP", () => {
          assert.equal(init.agentCapabilities?.loadSession, true);
          assert.equal(init.agentCapabilities?.mcpCapabilities?.http, true);
          assert.equal(init.agentInfo?.name, "sync-demo");
        });
        await t.step("a turn quotes the prompt and asks one permission", async () => {
          await ctx.buildSession(project).withSession(async (session) => {
            await session.prompt("Hello there");
            const text = await session.readText();
            assert.match(text, /^You said: «Hello there»\. You allowed it\.$/);
          });
          assert.equal(asked.length, 1);
          assert.deepEqual(asked[0].options.map((option) => option.kind), [
            "allow_once",
            "reject_once",
          ]);
        });
        await t.step("a session offered sync-mcp reports a tool call for it", async () => {
          const updates: acp.SessionUpdate[] = [];
          await ctx.buildSession(project)
            .withMcpServer({ name: "sync", command: "sync-mcp", args: [], env: [] })
            .withSession(async (session) => {
              await session.prompt("no-permission");
              for (;;) {
                const message = await session.nextUpdate();
                if (message.kind === "stop") break;
                updates.push(message.update);
              }
            });
          const call = updates.find((update) =>
            update.sessionUpdate === "tool_call" && update.title === "sync-mcp (sync)"
          );
          assert.ok(call, JSON.stringify(updates.map((update) => update.sessionUpdate)));
        });
        await t.step("a tool asked for with no sync-mcp over HTTP fails, saying why", async () => {
          const updates: acp.SessionUpdate[] = [];
          let text = "";
          await ctx.buildSession(project)
            .withMcpServer({ name: "sync", command: "sync-mcp", args: [], env: [] })
            .withSession(async (session) => {
              await session.prompt('no-permission tool hello_greet {"name":"Ada"}');
              for (;;) {
                const message = await session.nextUpdate();
                if (message.kind === "stop") break;
                updates.push(message.update);
                if (
                  message.update.sessionUpdate === "agent_message_chunk" &&
                  message.update.content.type === "text"
                ) text += message.update.content.text;
              }
            });
          const call = updates.find((update) =>
            update.sessionUpdate === "tool_call" && update.title === "hello_greet"
          );
          assert.ok(call?.sessionUpdate === "tool_call");
          assert.equal(call.status, "failed");
          assert.match(
            text,
            /Could not call hello_greet: the demo agent speaks MCP over HTTP only/,
          );
        });
      });
  } finally {
    await child.stdin.close().catch(() => {});
    await child.status;
    await child.stderr.cancel();
    await Deno.remove(project, { recursive: true });
  }
});
