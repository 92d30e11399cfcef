/**
 * One sync-mcp server for one project and one client: the SDK's `McpServer`
 * with the curated tools (read memory, order work and ask its state), one
 * tool per handler the project's packages declare with `agent`, and each
 * package's prompt. Its tools follow installs, removals and approvals while
 * the client is connected, and the client is told (`tools/list_changed`).
 *
 * Whatever goes wrong in a tool is answered as a tool error (`isError`, with
 * what was wrong and what to do), never as a failed server.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import {
  McpServer,
  type RegisteredPrompt,
  type RegisteredTool,
} from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types";
import { z } from "zod";
import { describeError } from "../internal/describe_error.ts";
import { RECORD_LIMITS } from "../limits.ts";
import type { RecordCursors } from "../memory/mod.ts";
import { packageFile } from "../packages/mod.ts";
import type { RecordQuery } from "../extension_api/service.ts";
import type { Source } from "../types.ts";
import { AgentMemory } from "./agent_memory.ts";
import { orderWork, readWorkState } from "./agent_work.ts";
import { invalidParams } from "./invalid_params.ts";
import { toolSchema } from "./tool_schema.ts";
import { unknownName } from "./unknown_name.ts";
import { withoutCodePrefix } from "./without_code_prefix.ts";
import type { McpHost } from "./mcp_host.ts";
import { MCP_LIMITS } from "./mcp_limits.ts";
import {
  BUILT_IN_TOOLS,
  type HandlerTool,
  type PackagePrompt,
  type ProjectOffer,
  readProjectOffer,
} from "./project_offer.ts";

/** The name and version sync-mcp gives itself in `initialize`. */
export const MCP_SERVER_INFO = { name: "sync-mcp", version: "0.1.0" } as const;

/** What sync-mcp tells a client it is, in `initialize`. */
const INSTRUCTIONS = "Sync hosts extensions for this project. Read the project's memory with " +
  "memory_list, memory_record and memory_content; order a coding-agent session with " +
  "work_order and ask its state with work_state; the other tools are handlers the project's " +
  "extensions offer. Each extension's prompt says what it tells an agent.";

/** Options for {@linkcode ProjectServer.open}. */
export interface ProjectServerOptions {
  /** The project's resolved folder. */
  project: string;
  /**
   * Who calls, given the name the client gave itself in `initialize`:
   * the source of every handler call and work order made through the server.
   */
  source: (clientName: string | undefined) => Source;
  /** Seals memory listings' cursors: the installation's, so a cursor outlives a connection. */
  cursors: RecordCursors;
  /** Where notices go (a tool name taken twice, a refresh that failed). */
  log?: (line: string) => void;
  /**
   * Told once `work_order` has written an order into the project's outbox,
   * so that whoever performs work begins it now rather than at its next look.
   */
  workOrdered?: (project: string) => void;
}

/**
 * A tool's answer: its JSON as text and, when it is a JSON object, as
 * `structuredContent` too. MCP allows structured content from a tool that
 * lists no output schema, and a client that reads it then need not parse the
 * text; a tool that lists one (a handler that declares `agent.output`) must
 * answer it, and the SDK's server checks it against the schema.
 */
function answer(value: unknown): CallToolResult {
  const content: CallToolResult["content"] = [{
    type: "text",
    text: JSON.stringify(value ?? null),
  }];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { content };
  return { content, structuredContent: value as Record<string, unknown> };
}

/**
 * A tool error: the error's name and message, which say what was wrong and
 * what to do.
 */
function toolError(error: unknown): CallToolResult {
  const { name, message } = describeError(error);
  return { content: [{ type: "text", text: `${name}: ${message}` }], isError: true };
}

/** Runs a tool's work, answering its value or a tool error. */
async function tool(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return answer(await work());
  } catch (error) {
    return toolError(error);
  }
}

/** A handler tool as registered, with what it was registered from. */
interface Registered {
  from: string;
  tool: RegisteredTool;
}

/** A server for one project and one client. */
export class ProjectServer {
  /**
   * The SDK's server; connect it to one transport.
   *
   * @ignore The SDK's class, documented by the SDK.
   */
  readonly server: McpServer;
  #host: McpHost;
  #options: ProjectServerOptions;
  #log: (line: string) => void;
  #offer: ProjectOffer = { kinds: [], tools: new Map(), prompts: new Map() };
  #tools = new Map<string, Registered>();
  #prompts = new Map<string, { from: string; prompt: RegisteredPrompt }>();
  #closed = false;
  #watching: Promise<void> | undefined;
  #unwatch: (() => void) | undefined;
  #refreshing: Promise<void> = Promise.resolve();

  private constructor(host: McpHost, options: ProjectServerOptions) {
    this.#host = host;
    this.#options = options;
    this.#log = options.log ?? (() => {});
    this.server = new McpServer(MCP_SERVER_INFO, {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
      instructions: INSTRUCTIONS,
    });
    this.#registerBuiltIns();
    // The SDK declares the prompts capability with the first prompt, which
    // it cannot do once connected: a project whose first prompt comes with an
    // install made while a client is connected must have declared it already.
    this.server.registerPrompt("sync", { description: "declares prompts" }, () => ({
      messages: [],
    })).remove();
  }

  /**
   * A server over what the project offers now, watching the host's events
   * for installs and removals in the project until closed.
   *
   * @param host The installation's owner.
   * @param options The project, who calls, the cursors' seal.
   */
  static async open(host: McpHost, options: ProjectServerOptions): Promise<ProjectServer> {
    const server = new ProjectServer(host, options);
    await server.refresh();
    server.#watch();
    return server;
  }

  /**
   * Connects the server to one transport. A request whose params do not fit
   * its method is answered here, as invalid params (-32602) naming what was
   * wrong, and never reaches the SDK's server, which would answer it as an
   * internal error (-32603) with the schema library's issues as JSON; so is
   * a call of a tool or prompt the server did not register, which the SDK
   * would look up in a plain object and find `constructor` or `toString` in.
   * What the SDK's server refuses itself is sent without the code it puts
   * in front of its message ({@linkcode withoutCodePrefix}).
   *
   * @param transport The transport, not started: connecting starts it.
   * @ignore Takes the SDK's transport, documented by the SDK.
   */
  async connect(transport: Transport): Promise<void> {
    await this.server.connect(transport);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(withoutCodePrefix(message), options);
    const deliver = transport.onmessage;
    const offered = {
      tool: (name: string) => BUILT_IN_TOOLS.includes(name) || this.#tools.has(name),
      prompt: (name: string) => this.#prompts.has(name),
    };
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      const refused = invalidParams(message) ?? unknownName(message, offered);
      if (refused === null) return deliver?.(message, extra as never);
      transport.send(refused).catch((error: Error) =>
        this.#log(`[mcp] could not answer a request: ${describeError(error).message}`)
      );
    };
  }

  /** The source of a call made now, from the client's name. */
  #source(): Source {
    const name = this.server.server.getClientVersion()?.name;
    return this.#options.source(
      typeof name === "string" ? name.slice(0, MCP_LIMITS.maxClientNameChars) : undefined,
    );
  }

  async #memory(): Promise<AgentMemory> {
    const { project, cursors } = this.#options;
    return new AgentMemory(await this.#host.projectMemory(project), {
      project,
      kinds: this.#offer.kinds,
      cursors,
    });
  }

  #registerBuiltIns(): void {
    const { project } = this.#options;
    const key = z.string().describe("A record key, kind/name, such as issues.issue/42");
    this.server.registerTool("memory_list", {
      description: "List the project's records, a page at a time: every kind its extensions " +
        "publish, or one kind or key prefix; pass the cursor a page answers to read the next.",
      inputSchema: {
        kind: z.string().optional().describe("Only this kind, such as issues.issue"),
        prefix: z.string().optional().describe("Only keys starting with this"),
        limit: z.number().int().min(1).max(RECORD_LIMITS.maxListLimit).optional()
          .describe("Records per page"),
        cursor: z.string().optional().describe("The cursor the previous page answered"),
      },
      annotations: { readOnlyHint: true },
    }, (query: RecordQuery) => tool(async () => (await this.#memory()).list(query)));
    this.server.registerTool("memory_record", {
      description: "Read one record's summary (title, fields, revision) by key; null when absent.",
      inputSchema: { key },
      annotations: { readOnlyHint: true },
    }, ({ key }: { key: string }) => tool(async () => (await this.#memory()).record(key)));
    this.server.registerTool("memory_content", {
      description: "Read one record's text body by key; null when the record is absent.",
      inputSchema: { key },
      annotations: { readOnlyHint: true },
    }, ({ key }: { key: string }) => tool(async () => (await this.#memory()).content(key)));
    this.server.registerTool("work_order", {
      description: "Order a coding-agent session that works on this project and outlives this " +
        "call; answers the order's key for work_state.",
      inputSchema: {
        kind: z.literal("agent.session").describe("The kind of work; today agent.session"),
        agent: z.string().describe("Which coding agent runs it, such as claude-code"),
        title: z.string().describe("A short title a person reads in Chat"),
        prompt: z.object({
          text: z.string().describe("What the agent is asked to do"),
          attachments: z.array(z.string()).optional().describe(
            "Files the agent should read, as absolute paths",
          ),
        }),
        onInterrupted: z.enum(["continue", "wait"]).describe(
          "If Sync stops while the session runs: continue (the work should finish without " +
            "anybody) or wait (a person picks it up). Either way it is shown as interrupted and " +
            "nothing resumes by itself: a person presses Continue in Chat",
        ),
        about: z.string().optional().describe("The record key the work is about"),
      },
    }, (input: unknown) =>
      tool(async () => {
        const memory = await this.#host.projectMemory(project);
        const order = await orderWork(memory, input, {
          project,
          source: this.#source(),
          now: this.#host.now,
          agents: this.#host.agents,
        });
        this.#options.workOrdered?.(project);
        return { key: order.key, state: order.state };
      }));
    this.server.registerTool(
      "work_state",
      {
        description: "Tell where a piece of work ordered in this project has got to, by its key.",
        inputSchema: { key: z.string().describe("The key work_order answered") },
        annotations: { readOnlyHint: true },
      },
      ({ key }: { key: string }) =>
        tool(async () =>
          readWorkState(await this.#host.projectMemory(project), key, {
            project,
            performing: this.#host.workState,
          })
        ),
    );
  }

  /**
   * Reads what the project offers again and brings the handler tools and
   * prompts in line; the SDK tells a connected client the lists changed.
   */
  refresh(): Promise<void> {
    this.#refreshing = this.#refreshing.then(async () => {
      if (this.#closed) return;
      try {
        this.#offer = await readProjectOffer(this.#host.kv, this.#options.project, this.#log);
      } catch (error) {
        this.#log(
          `[mcp] could not read what ${this.#options.project} offers: ` +
            describeError(error).message,
        );
        this.#offer = { kinds: [], tools: new Map(), prompts: new Map() };
      }
      // One tool or prompt the SDK will not take must not cost the others,
      // nor leave the chain of refreshes rejected for good.
      try {
        this.#syncTools(this.#offer.tools);
        this.#syncPrompts(this.#offer.prompts);
      } catch (error) {
        this.#log(
          `[mcp] could not offer what ${this.#options.project} offers: ` +
            describeError(error).message,
        );
      }
    });
    return this.#refreshing;
  }

  #syncTools(tools: Map<string, HandlerTool>): void {
    for (const [name, registered] of this.#tools) {
      const wanted = tools.get(name);
      if (wanted && JSON.stringify(wanted) === registered.from) continue;
      registered.tool.remove();
      this.#tools.delete(name);
    }
    for (const [name, handlerTool] of tools) {
      if (this.#tools.has(name)) continue;
      try {
        this.#tools.set(name, {
          from: JSON.stringify(handlerTool),
          tool: this.#registerHandlerTool(handlerTool),
        });
      } catch (error) {
        this.#log(`[mcp] could not offer the tool ${name}: ${describeError(error).message}`);
      }
    }
  }

  #registerHandlerTool(handlerTool: HandlerTool): RegisteredTool {
    const { project } = this.#options;
    return this.server.registerTool(handlerTool.name, {
      title: handlerTool.handler,
      description: handlerTool.agent.description,
      // The manifest's schemas, checked with RE2 and listed as written
      // (toolSchema); one that cannot be is not offered, and the log says why.
      inputSchema: toolSchema(handlerTool.agent.input),
      ...(handlerTool.agent.output ? { outputSchema: toolSchema(handlerTool.agent.output) } : {}),
    }, (payload: unknown, extra: { signal: AbortSignal }) =>
      tool(async () => {
        // The client's `notifications/cancelled` for this request aborts the
        // signal: the call stops, commits nothing, and its receipt says so.
        const { value } = await this.#host.callHandler(
          project,
          handlerTool.packageId,
          handlerTool.handler,
          { occasion: { kind: "agent" }, source: this.#source(), payload, signal: extra.signal },
        );
        return value;
      }));
  }

  #syncPrompts(prompts: Map<string, PackagePrompt>): void {
    for (const [name, registered] of this.#prompts) {
      const wanted = prompts.get(name);
      if (wanted && JSON.stringify(wanted) === registered.from) continue;
      registered.prompt.remove();
      this.#prompts.delete(name);
    }
    for (const [name, prompt] of prompts) {
      if (this.#prompts.has(name)) continue;
      try {
        this.#prompts.set(name, {
          from: JSON.stringify(prompt),
          prompt: this.server.registerPrompt(name, {
            title: prompt.title,
            description: prompt.description,
          }, async () => ({
            description: prompt.description,
            messages: [{ role: "user", content: { type: "text", text: await readPrompt(prompt) } }],
          })),
        });
      } catch (error) {
        this.#log(`[mcp] could not offer the prompt ${name}: ${describeError(error).message}`);
      }
    }
  }

  /** Follows installs and removals in the project while the server is open. */
  #watch(): void {
    const subscription = this.#host.events.subscribe({ project: this.#options.project });
    this.#unwatch = () => subscription.close();
    this.#watching = (async () => {
      while (!this.#closed && !subscription.closed) {
        const event = await subscription.next(60_000);
        if (event === null) continue;
        if (event.type === "installed" || event.type === "removed" || event.type === "resync") {
          await this.refresh();
        }
      }
    })();
  }

  /** Stops following the project and closes the SDK's server (and its transport). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unwatch?.();
    await this.#watching;
    await this.#refreshing;
    await this.server.close();
  }
}

/** The prompt file's text, cut to `MCP_LIMITS.maxPromptBytes`. */
async function readPrompt(prompt: PackagePrompt): Promise<string> {
  // Only the package's own file: a linked folder's prompt may since have become a link outside.
  const file = await Deno.open(await packageFile(prompt.dir, prompt.file), { read: true });
  try {
    const buffer = new Uint8Array(MCP_LIMITS.maxPromptBytes);
    let length = 0;
    while (length < buffer.length) {
      const read = await file.read(buffer.subarray(length));
      if (read === null) break;
      length += read;
    }
    return new TextDecoder().decode(buffer.subarray(0, length));
  } finally {
    file.close();
  }
}
