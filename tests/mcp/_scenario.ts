/**
 * What every transport of sync-mcp is held to, with a real SDK client: the
 * packages the tests install, and the steps run against each transport.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types";
import { join } from "node:path";
import { type PackageSpec, writePackage } from "../internal/packages.ts";

/** A package with three agent tools: one that answers, one that never returns, one that seeds. */
export const TOOLS_PACKAGE: PackageSpec = {
  id: "tools",
  handlers: ["tools.seed", "tools.echo", "tools.spin"],
  types: { "note.json": "tools.note" },
  service: `import { memory } from "@sync/extension-api/service";
export default function register() {
  return {
    "tools.seed": async () => {
      for (let i = 1; i <= 3; i++) {
        await memory.write({ key: "tools.note/" + i, title: "Note " + i, content: "Body " + i });
      }
      return 3;
    },
    "tools.echo": (payload, occasion) => ({ text: payload.text, occasion: occasion.kind }),
    "tools.spin": () => { for (;;) {} },
  };
}
`,
  manifest: {
    handlers: {
      "tools.seed": { description: "Writes three notes" },
      "tools.echo": {
        description: "Echoes a text",
        agent: {
          description: "Echo a text back, with the occasion the handler was told",
          input: {
            type: "object",
            properties: { text: { type: "string", minLength: 1 } },
            required: ["text"],
            additionalProperties: false,
          },
        },
      },
      "tools.spin": {
        description: "Never returns",
        agent: { description: "Run until stopped", input: { type: "object", properties: {} } },
      },
    },
  },
};

/** What {@linkcode LATER_PACKAGE} tells an agent. */
export const LATER_PROMPT = "Ping when you need to know Sync answers.\n";

/** A package installed while a client is connected, with a tool and a prompt. */
export const LATER_PACKAGE: PackageSpec = {
  id: "later",
  handlers: ["later.ping"],
  service: `export default function register() { return { "later.ping": () => "pong" }; }`,
  manifest: {
    prompt: "prompt/instructions.md",
    handlers: {
      "later.ping": {
        description: "Answers pong",
        agent: { description: "Answer pong", input: { type: "object", properties: {} } },
      },
    },
  },
};

/**
 * Writes {@linkcode LATER_PACKAGE}'s folder under `root`, prompt included.
 *
 * @returns The package folder.
 */
export async function writeLaterPackage(root: string): Promise<string> {
  const dir = await writePackage(root, LATER_PACKAGE);
  await Deno.mkdir(join(dir, "prompt"));
  await Deno.writeTextFile(join(dir, "prompt", "instructions.md"), LATER_PROMPT);
  return dir;
}

/** The tool's text, parsed as JSON when it is an answer. */
export function toolText(result: unknown): string {
  const content = (result as CallToolResult).content;
  assert.equal(content[0].type, "text");
  return (content[0] as { text: string }).text;
}

/** A tool call's JSON answer; fails when the call was a tool error. */
export async function callJson(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name} failed: ${toolText(result)}`);
  return JSON.parse(toolText(result));
}

/** A tool call's error text; fails when the call answered. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, `${name} answered: ${toolText(result)}`);
  return toolText(result);
}

/** What the scenario needs of the place its client talks to. */
export interface ScenarioPlace {
  /** Calls `tools.seed` as a person, so the project holds three notes. */
  seed(): Promise<void>;
  /** Installs {@linkcode LATER_PACKAGE} into the project, approved; answers its (linked) folder. */
  installLater(): Promise<string>;
}

/**
 * Runs every step against a connected client whose project has
 * {@linkcode TOOLS_PACKAGE} installed and approved.
 */
export async function exerciseClient(
  t: Deno.TestContext,
  client: Client,
  place: ScenarioPlace,
): Promise<void> {
  let changed: () => void = () => {};
  const listChanged = new Promise<void>((resolve) => changed = resolve);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  let promptsChanged: () => void = () => {};
  const promptListChanged = new Promise<void>((resolve) => promptsChanged = resolve);
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => promptsChanged());

  await t.step(
    "tools/list has the memory and work tools and the handlers declared as agent tools",
    async () => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name).sort();
      assert.deepEqual(names, [
        "memory_content",
        "memory_list",
        "memory_record",
        "tools_echo",
        "tools_spin",
        "work_order",
        "work_state",
      ]);
      const echo = tools.find((tool) => tool.name === "tools_echo")!;
      assert.equal(echo.description, "Echo a text back, with the occasion the handler was told");
      assert.deepEqual(echo.inputSchema.properties, { text: { type: "string", minLength: 1 } });
      assert.deepEqual(echo.inputSchema.required, ["text"]);
    },
  );

  await t.step(
    "memory_list pages with a cursor; memory_record and memory_content read a record",
    async () => {
      await place.seed();
      const first = await callJson(client, "memory_list", { kind: "tools.note", limit: 2 }) as {
        records: { key: string }[];
        cursor?: string;
      };
      assert.deepEqual(first.records.map((r) => r.key), ["tools.note/1", "tools.note/2"]);
      assert.equal(typeof first.cursor, "string");
      const second = await callJson(client, "memory_list", {
        kind: "tools.note",
        limit: 2,
        cursor: first.cursor,
      }) as { records: { key: string }[]; cursor?: string };
      assert.deepEqual(second.records.map((r) => r.key), ["tools.note/3"]);
      assert.equal(second.cursor, undefined);
      const record = await callJson(client, "memory_record", { key: "tools.note/2" }) as {
        title: string;
      };
      assert.equal(record.title, "Note 2");
      assert.equal(await callJson(client, "memory_content", { key: "tools.note/2" }), "Body 2");
      assert.equal(await callJson(client, "memory_record", { key: "tools.note/9" }), null);
    },
  );

  await t.step(
    "a kind no package publishes is refused by name, and a forged cursor too",
    async () => {
      const refused = await callError(client, "memory_list", { kind: "secret.thing" });
      assert.match(refused, /^MemoryAccessError: An agent cannot read kind secret\.thing/);
      assert.match(refused, /tools\.note/);
      assert.match(
        await callError(client, "memory_content", { key: "secret.thing/1" }),
        /MemoryAccessError/,
      );
      assert.match(
        await callError(client, "memory_list", { kind: "tools.note", cursor: "forged" }),
        /InvalidInputError/,
      );
    },
  );

  await t.step("work_order writes an order, and work_state answers its state", async () => {
    // The demo agent: a serve performs what is ordered, and it needs no network.
    const ordered = await callJson(client, "work_order", {
      kind: "agent.session",
      agent: "demo",
      title: "Fix the flaky test",
      prompt: { text: "Find out why the test fails now and then, and fix it" },
      onInterrupted: "wait",
    }) as { key: string; state: string };
    assert.match(ordered.key, /^work-/);
    assert.equal(ordered.state, "ordered");
    const state = await callJson(client, "work_state", { key: ordered.key }) as {
      state: string;
      title: string;
    };
    // Where a serve performs work, the session may have begun by now.
    assert.ok(
      ["ordered", "running", "waiting", "ended"].includes(state.state),
      `work_state answered ${state.state}`,
    );
    assert.equal(state.title, "Fix the flaky test");
    assert.match(await callError(client, "work_state", { key: "work-none" }), /NotFoundError/);
    assert.match(
      await callError(client, "work_order", {
        kind: "agent.session",
        agent: "claude-code",
        title: "",
        prompt: { text: "x" },
        onInterrupted: "wait",
      }),
      /title/,
    );
  });

  await t.step("a handler tool runs with occasion agent; bad input is a tool error", async () => {
    assert.deepEqual(await callJson(client, "tools_echo", { text: "hi" }), {
      text: "hi",
      occasion: "agent",
    });
    assert.match(await callError(client, "tools_echo", { text: 3 }), /text/);
    assert.match(await callError(client, "tools_echo", {}), /text/);
    assert.match(await callError(client, "no_such_tool", {}), /no_such_tool/);
  });

  await t.step("a handler tool that never returns times out as a tool error", async () => {
    const error = await callError(client, "tools_spin", {});
    assert.match(error, /^HandlerTimeoutError: /);
    // The server is still there.
    assert.equal((await client.listTools()).tools.length, 7);
  });

  let laterDir = "";
  await t.step("an install while connected is told (tools/list_changed) and listed", async () => {
    laterDir = await place.installLater();
    await listChanged;
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "later_ping"));
    assert.equal(await callJson(client, "later_ping", {}), "pong");
  });

  await t.step("the package's prompt is listed once installed, and got", async () => {
    await promptListChanged;
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ["later"]);
    const got = await client.getPrompt({ name: "later" });
    assert.deepEqual(got.messages, [
      { role: "user", content: { type: "text", text: LATER_PROMPT } },
    ]);
  });

  await t.step("a prompt that became a link outside the package is not read", async () => {
    const prompt = join(laterDir, "prompt", "instructions.md");
    const secret = join(laterDir, "..", "secret.md");
    await Deno.writeTextFile(secret, "TOP SECRET\n");
    await Deno.remove(prompt);
    await Deno.symlink(secret, prompt);
    await assert.rejects(client.getPrompt({ name: "later" }), /leads outside the package/);
  });
}
