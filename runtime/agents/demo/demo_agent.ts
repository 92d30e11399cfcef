/**
 * The demo agent: a small ACP agent that ships with Sync, so that work and
 * Chat can be tried, and tested, with no key and no network beyond this
 * machine. It speaks the Agent Client Protocol over its stdin and stdout as
 * newline-delimited JSON-RPC. The one permission it needs is to reach
 * sync-mcp on the loopback address, where Sync offers it:
 *
 * ```sh
 * deno run --allow-net=127.0.0.1 runtime/agents/demo/demo_agent.ts
 * ```
 *
 * On each prompt it reports a plan, a thought, a tool call that goes from
 * `pending` through `in_progress` to `completed`, asks one permission (Allow
 * or Deny), and streams a reply that quotes the prompt in several chunks and
 * says what the person chose.
 *
 * It advertises `mcpCapabilities.http`. When the session was offered an MCP
 * server named `sync` over HTTP, it connects to it each turn (with the
 * headers it was given: the session's token) and reports a tool call,
 * `sync-mcp (sync)`, that lists the server's tools. A `sync` offered over
 * stdio is reported and not used.
 *
 * It keeps its sessions in memory, keyed by session id: `session/load` of a
 * session this process made replays every update of it; a session it does
 * not know (it was made before the process restarted) fails with a clear
 * error, so the client starts a new session instead.
 *
 * Words in the prompt tell it what to do instead (whole words, any case):
 *
 * - `fail` — the turn ends with an error after the first chunk.
 * - `hang` — it never answers the prompt until the client sends
 *   `session/cancel`; then the turn ends with stop reason `cancelled`.
 * - `crash` — it writes a chunk and a line on stderr, then exits with code 1
 *   in the middle of the turn.
 * - `junk` — it prints lines on stdout that are not JSON-RPC, then goes on as
 *   usual.
 * - `no-permission` — it skips asking the permission.
 * - `chatter` — it writes a numbered line on stderr every 20 ms for as long
 *   as the turn lasts (`demo agent: working, line 12`).
 *
 * And two that take a path, to try the client's files (when the client
 * offers them): `read /absolute/path` reads the file through the client and
 * quotes it, `write /absolute/path` writes a line into it through the client;
 * either reports the client's refusal when there is one.
 *
 * And one that calls a tool of sync-mcp: `tool <name> <json object>`, such
 * as `tool hello_greet {"name":"Ada"}` (the object on the same line; `{}`
 * for none). It calls the tool on the `sync` server it was offered, reports
 * the call as a tool call that ends `completed`, or `failed` when the tool
 * answered an error or could not be called, and quotes the tool's answer in
 * the reply.
 *
 * The same words given as flags (`--hang`, `--junk`, …) apply to every turn.
 * Two flags act before any prompt exists:
 *
 * - `--no-init` — it never answers `initialize`.
 * - `--needs-sign-in` — it lists a sign-in method and refuses `session/new`
 *   and `session/load` with "authentication required", as an agent does
 *   whose person has not signed in.
 * - `--needs-key NAME` (or `--needs-key=NAME`) — it lists an `env_var`
 *   sign-in method that reads the variable `NAME`, and refuses `session/new`
 *   and `session/load` with "authentication required" until the client
 *   calls `authenticate` with that method while `NAME` is set in its
 *   environment; `authenticate` without it is refused, saying so. It reads
 *   only that variable: start it with `--allow-env=NAME`.
 * - `--slow-start` — from its start, and before it answers `initialize`, it
 *   writes a line on stderr every 100 ms for 3 s, as a program that takes a
 *   while to load and says so (with `--no-init`, it then falls silent).
 * - `--session-gate=PATH` — `session/new` answers only once the file `PATH`
 *   exists, as an agent that takes a while to open a session (start it with
 *   `--allow-read=PATH`; `demoAgentCommand` does).
 * - `--download-start` — from its start, and before it answers
 *   `initialize`, it writes the line npm writes when it fetched a package
 *   over the network (`npm http fetch GET 200 … (cache miss)`), then says
 *   nothing for 3 s, as `npx` downloading a large adapter does.
 *
 * @module
 */
import * as acp from "@agentclientprotocol/sdk";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The words the demo agent obeys, in a prompt or as `--word` flags. */
const WORDS = ["fail", "hang", "crash", "junk", "no-permission", "chatter"] as const;
/** One of {@linkcode WORDS}. */
type Word = typeof WORDS[number];

/** A session this process made: its updates, for `session/load` to replay. */
interface DemoSession {
  /** Every update sent for the session, in order. */
  updates: acp.SessionUpdate[];
  /** The MCP servers the client offered when the session was made or loaded. */
  mcpServers: acp.McpServer[];
  /** Aborted by `session/cancel`; a new one per turn. */
  turn: AbortController | null;
  /** How many turns the session has had, for unique tool call ids. */
  turns: number;
}

/** What the client offered at `initialize`: its files, or not. */
const clientFiles = { read: false, write: false };
const flags = new Set(Deno.args.map((arg) => arg.replace(/^--/, "")));
/** The variable `--needs-key` names, or null. */
const neededKey = keyFlag(Deno.args);
/** The file `--session-gate` names: `session/new` waits for it. */
const sessionGate = Deno.args.find((arg) => arg.startsWith("--session-gate="))
  ?.slice("--session-gate=".length) ?? null;
const sessions = new Map<string, DemoSession>();
const encoder = new TextEncoder();

/**
 * Writes bytes to stdout whole and synchronously, so that a line of junk
 * never lands inside a JSON-RPC message that is being written.
 */
function writeOut(bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

/** What Sync puts before the person's words when it restores a conversation in a new session. */
const RESTORED_NOW = "The person now says:";

/** The words of a prompt and of the flags this process was started with. */
function wordsOf(prompt: acp.ContentBlock[]): Set<Word> {
  const whole = prompt.map((block) => block.type === "text" ? block.text : "").join(" ");
  // A conversation Sync restored carries what was said before: only the person's new words
  // tell this turn what to do, or a turn that failed on purpose would fail every turn after it.
  const restored = whole.lastIndexOf(RESTORED_NOW);
  const text = restored === -1 ? whole : whole.slice(restored + RESTORED_NOW.length);
  const said = new Set(text.toLowerCase().split(/[^a-z-]+/));
  return new Set(WORDS.filter((word) => said.has(word) || flags.has(word)));
}

/** The text of a prompt, for the reply to quote. */
function textOf(prompt: acp.ContentBlock[]): string {
  return prompt.map((block) => block.type === "text" ? block.text : `[${block.type}]`).join("\n");
}

/** Cuts text into pieces of about `size` characters, so the reply streams in several chunks. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out.length > 0 ? out : [""];
}

/** One line npm 11 wrote on stderr as `npx -y` fetched a package on first use, with `npm_config_loglevel=http`. */
const NPM_FETCH_LINE =
  "npm http fetch GET 200 https://registry.npmjs.org/@zed-industries%2fcodex-acp 81ms (cache miss)";

/** Resolves after `ms`. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when the turn is cancelled. */
function cancelled(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A tool the prompt asks to call: `tool <name> <json object>`. */
interface ToolAsk {
  /** The tool's name on the server. */
  name: string;
  /** Its arguments, or why they could not be read. */
  args: Record<string, unknown> | string;
}

/** The tools a prompt asks to call, in order. */
function toolAsks(text: string): ToolAsk[] {
  const asks: ToolAsk[] = [];
  for (const [, name, json] of text.matchAll(/\btool ([A-Za-z0-9_-]+)[ \t]+(\{.*\})/g)) {
    let args: Record<string, unknown> | string;
    try {
      const parsed = JSON.parse(json);
      args = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? parsed
        : "its arguments are not a JSON object";
    } catch (error) {
      args = `its arguments are not JSON (${error instanceof Error ? error.message : error})`;
    }
    asks.push({ name, args });
  }
  return asks;
}

/** The text of a tool's answer: its text blocks, joined. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content.map((block) =>
    block?.type === "text" && typeof block.text === "string" ? block.text : `[${block?.type}]`
  ).join("\n");
}

/** One line of text for the reply, from whatever was thrown. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the demo agent does with sync-mcp in a turn: over HTTP it connects
 * with the headers it was given, reports the server's tools as a tool call,
 * and calls each tool the prompt asks for, each as a tool call of its own.
 * A server offered over stdio is reported and not used: the demo agent
 * speaks MCP over HTTP only.
 *
 * @returns One line per tool asked for, for the reply: its answer, or why it could not be called.
 */
async function useSyncMcp(
  report: (update: acp.SessionUpdate) => Promise<void>,
  server: acp.McpServer | undefined,
  asks: ToolAsk[],
  n: number,
): Promise<string[]> {
  const listId = `sync-mcp-${n}`;
  const title = `sync-mcp (${server?.name ?? "sync"})`;
  const lines: string[] = [];
  const refuse = async (why: string) => {
    let i = 0;
    for (const ask of asks) {
      const toolCallId = `mcp-${n}-${++i}`;
      const line = `Could not call ${ask.name}: ${why}`;
      await report({
        sessionUpdate: "tool_call",
        toolCallId,
        title: ask.name,
        kind: "other",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: line } }],
      });
      lines.push(line);
    }
    return lines;
  };
  if (server === undefined) {
    return await refuse("the session was offered no MCP server named sync.");
  }
  if (!("type" in server) || server.type !== "http") {
    const transport = "command" in server
      ? `stdio: ${server.command}`
      : `${server.type}: ${server.url}`;
    await report({
      sessionUpdate: "tool_call",
      toolCallId: listId,
      title,
      kind: "other",
      status: "completed",
      content: [{
        type: "content",
        content: {
          type: "text",
          text: `Offered over ${transport}; the demo agent speaks MCP over HTTP only.`,
        },
      }],
    });
    return await refuse("the demo agent speaks MCP over HTTP only.");
  }

  await report({ sessionUpdate: "tool_call", toolCallId: listId, title, kind: "other" });
  const client = new Client({ name: "sync-demo", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: {
      headers: Object.fromEntries(server.headers.map(({ name, value }) => [name, value])),
    },
  });
  try {
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      await report({
        sessionUpdate: "tool_call_update",
        toolCallId: listId,
        status: "completed",
        content: [{
          type: "content",
          content: {
            type: "text",
            text: `Tools: ${tools.map((tool) => tool.name).join(", ")}`,
          },
        }],
      });
    } catch (error) {
      const why = `sync-mcp at ${server.url} did not answer: ${messageOf(error)}`;
      await report({
        sessionUpdate: "tool_call_update",
        toolCallId: listId,
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: why } }],
      });
      return await refuse(why);
    }
    let i = 0;
    for (const ask of asks) {
      const toolCallId = `mcp-${n}-${++i}`;
      await report({
        sessionUpdate: "tool_call",
        toolCallId,
        title: ask.name,
        kind: "other",
        status: "in_progress",
        rawInput: ask.args,
      });
      let status: acp.ToolCallStatus = "completed";
      let line: string;
      if (typeof ask.args === "string") {
        status = "failed";
        line = `Could not call ${ask.name}: ${ask.args}.`;
      } else {
        try {
          const result = await client.callTool({ name: ask.name, arguments: ask.args });
          const text = resultText(result.content);
          if (result.isError === true) {
            status = "failed";
            line = `${ask.name} answered an error: ${text}`;
          } else {
            line = `${ask.name} answered: ${text}`;
          }
        } catch (error) {
          status = "failed";
          line = `Could not call ${ask.name}: ${messageOf(error)}`;
        }
      }
      await report({
        sessionUpdate: "tool_call_update",
        toolCallId,
        status,
        content: [{ type: "content", content: { type: "text", text: line } }],
      });
      lines.push(line);
    }
    return lines;
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}

/**
 * Reads and writes the files the prompt names (`read /path`, `write /path`)
 * through the client, each as a tool call.
 *
 * @returns One line per file for the reply: what was read, or what the client said.
 */
async function useClientFiles(
  client: acp.AgentContext,
  sessionId: string,
  report: (update: acp.SessionUpdate) => Promise<void>,
  text: string,
  n: number,
): Promise<string[]> {
  const lines: string[] = [];
  let i = 0;
  for (const [, verb, path] of text.matchAll(/\b(read|write) (\/\S+)/g)) {
    const toolCallId = `file-${n}-${++i}`;
    const kind = verb === "read" ? "read" : "edit";
    await report({ sessionUpdate: "tool_call", toolCallId, title: `${verb} ${path}`, kind });
    let status: acp.ToolCallStatus = "completed";
    try {
      if (verb === "read" && clientFiles.read) {
        const { content } = await client.request(acp.methods.client.fs.readTextFile, {
          sessionId,
          path,
        });
        lines.push(`Read ${path}: ${content}`);
      } else if (verb === "write" && clientFiles.write) {
        await client.request(acp.methods.client.fs.writeTextFile, {
          sessionId,
          path,
          content: "written by the demo agent\n",
        });
        lines.push(`Wrote ${path}.`);
      } else {
        status = "failed";
        lines.push(`Could not ${verb} ${path}: the client does not offer it.`);
      }
    } catch (error) {
      status = "failed";
      lines.push(`Could not ${verb} ${path}: ${error instanceof Error ? error.message : error}`);
    }
    await report({ sessionUpdate: "tool_call_update", toolCallId, status });
  }
  return lines;
}

/** One prompt turn: what the demo agent does with what it was told. */
async function turn(
  client: acp.AgentContext,
  sessionId: string,
  session: DemoSession,
  prompt: acp.ContentBlock[],
  signal: AbortSignal,
): Promise<acp.PromptResponse> {
  const report = async (update: acp.SessionUpdate) => {
    session.updates.push(update);
    await client.notify(acp.methods.client.session.update, { sessionId, update });
  };
  const words = wordsOf(prompt);
  const text = textOf(prompt);
  ++session.turns;

  // The person's words are part of the session, so a load replays them too.
  session.updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
  if (words.has("chatter")) {
    let line = 0;
    const chatter = setInterval(() => console.error(`demo agent: working, line ${++line}`), 20);
    try {
      return await act(client, sessionId, session, prompt, signal, words, report);
    } finally {
      clearInterval(chatter);
    }
  }
  return await act(client, sessionId, session, prompt, signal, words, report);
}

/** What a turn does, once its words are known. */
async function act(
  client: acp.AgentContext,
  sessionId: string,
  session: DemoSession,
  prompt: acp.ContentBlock[],
  signal: AbortSignal,
  words: Set<Word>,
  report: (update: acp.SessionUpdate) => Promise<void>,
): Promise<acp.PromptResponse> {
  const say = (text: string) =>
    report({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  const text = textOf(prompt);
  const n = session.turns;

  if (words.has("junk")) {
    writeOut(encoder.encode(
      "this line is not JSON\n{not json either\n[1, 2, 3]\n" +
        '{"hello": "a JSON object that is not JSON-RPC"}\n\n',
    ));
  }
  const plan = (done: number): Promise<void> =>
    report({
      sessionUpdate: "plan",
      entries: ["Read the prompt", "Ask before writing", "Write the reply"].map((content, i) => ({
        content,
        priority: "medium",
        status: i < done ? "completed" : i === done ? "in_progress" : "pending",
      })),
    });
  await plan(0);
  await report({
    sessionUpdate: "agent_thought_chunk",
    content: { type: "text", text: `The prompt has ${text.length} characters.` },
  });

  if (words.has("fail")) {
    await say("Starting, then failing as told.");
    throw new acp.RequestError(-32603, "The demo agent was told to fail this turn");
  }
  if (words.has("crash")) {
    await say("Starting, then crashing as told.");
    console.error("demo agent: crashing in the middle of the turn, as told");
    Deno.exit(1);
  }
  if (words.has("hang")) {
    await say("Hanging until cancelled.");
    await cancelled(signal);
    return { stopReason: "cancelled" };
  }

  const readId = `read-${n}`;
  await report({
    sessionUpdate: "tool_call",
    toolCallId: readId,
    title: "Read the prompt",
    kind: "read",
    status: "pending",
  });
  await report({ sessionUpdate: "tool_call_update", toolCallId: readId, status: "in_progress" });
  await report({
    sessionUpdate: "tool_call_update",
    toolCallId: readId,
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: `${text.length} characters` } }],
  });
  const files = await useClientFiles(client, sessionId, report, text, n);
  const sync = session.mcpServers.find((server) => server.name === "sync");
  const asks = toolAsks(text);
  const tools = sync !== undefined || asks.length > 0
    ? await useSyncMcp(report, sync, asks, n)
    : [];
  await plan(1);

  let choice = "You were not asked.";
  if (!words.has("no-permission")) {
    const writeId = `write-${n}`;
    await report({
      sessionUpdate: "tool_call",
      toolCallId: writeId,
      title: "Write the reply",
      kind: "edit",
      status: "pending",
    });
    const answer = await Promise.race([
      client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: writeId, title: "Write the reply", kind: "edit" },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
        ],
      }),
      cancelled(signal).then(() => null),
    ]);
    if (answer === null || answer.outcome.outcome === "cancelled" || signal.aborted) {
      await report({ sessionUpdate: "tool_call_update", toolCallId: writeId, status: "failed" });
      return { stopReason: "cancelled" };
    }
    const allowed = answer.outcome.optionId === "allow";
    await report({
      sessionUpdate: "tool_call_update",
      toolCallId: writeId,
      status: allowed ? "completed" : "failed",
    });
    choice = allowed ? "You allowed it." : "You denied it.";
  }
  await plan(2);

  await say("You said: «");
  for (const piece of pieces(text, 16)) await say(piece);
  await say(`». ${choice}`);
  for (const line of [...files, ...tools]) await say(`\n${line}`);
  await plan(3);
  return { stopReason: "end_turn" };
}

/** Resolves once the file exists. */
async function gateOpen(path: string): Promise<void> {
  for (;;) {
    try {
      await Deno.stat(path);
      return;
    } catch {
      await sleep(20);
    }
  }
}

/** The name after `--needs-key` (or in `--needs-key=NAME`), or null. */
function keyFlag(args: readonly string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    if (args[i].startsWith("--needs-key=")) return args[i].slice("--needs-key=".length);
    if (args[i] === "--needs-key" && i + 1 < args.length) return args[i + 1];
  }
  return null;
}

/** The variable's value, or "" when it is not set (or the agent may not read it). */
function envValue(name: string): string {
  try {
    return Deno.env.get(name) ?? "";
  } catch {
    return "";
  }
}

/** The sign-in methods the demo agent lists, as its flags say. */
function authMethods(signIn: boolean): acp.AuthMethod[] {
  const methods: acp.AuthMethod[] = [];
  if (signIn) {
    methods.push({ id: "demo-login", name: "Demo login", description: "Run `demo login`" });
  }
  if (neededKey !== null) {
    // An `env_var` method: not in the SDK's stable types, sent as the protocol spells it.
    methods.push({
      type: "env_var",
      id: "demo-key",
      name: `Use ${neededKey}`,
      description: `Requires setting the \`${neededKey}\` environment variable.`,
      vars: [{ name: neededKey, label: "Demo key" }],
    } as unknown as acp.AuthMethod);
  }
  return methods;
}

/** The agent's handlers, connected to stdin and stdout. */
function main(): void {
  // Begun as the process starts, as a program that loads (or is fetched) before it reads anything.
  const gettingReady = (async () => {
    if (flags.has("slow-start")) {
      for (let i = 1; i <= 30; i++) {
        console.error(`demo agent: getting ready (${i}/30)`);
        await sleep(100);
      }
    }
    if (flags.has("download-start")) {
      console.error(NPM_FETCH_LINE);
      await sleep(3_000);
    }
  })();
  const output = new WritableStream<Uint8Array>({ write: (chunk) => writeOut(chunk) });
  const signIn = flags.has("needs-sign-in");
  /** Set once `authenticate` took the key. */
  let keyTaken = false;
  const refuseUnsignedIn = () => {
    if (signIn) {
      throw acp.RequestError.authRequired(undefined, "sign in with `demo login` first");
    }
    if (neededKey !== null && !keyTaken) {
      throw acp.RequestError.authRequired(
        undefined,
        `set ${neededKey} and authenticate with demo-key`,
      );
    }
  };
  acp.agent({ name: "sync-demo" })
    .onRequest(acp.methods.agent.initialize, async ({ params, signal }) => {
      await gettingReady;
      if (flags.has("no-init")) await cancelled(signal);
      clientFiles.read = params.clientCapabilities?.fs?.readTextFile === true;
      clientFiles.write = params.clientCapabilities?.fs?.writeTextFile === true;
      return {
        protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
        // sync-mcp is offered over HTTP only to an agent that says it takes it.
        agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } },
        agentInfo: { name: "sync-demo", title: "Sync demo agent", version: "1.0.0" },
        authMethods: authMethods(signIn),
      };
    })
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      if (neededKey === null || params.methodId !== "demo-key") {
        throw new acp.RequestError(
          -32603,
          `The demo agent cannot sign anyone in with ${JSON.stringify(params.methodId)}`,
        );
      }
      if (envValue(neededKey) === "") {
        throw acp.RequestError.authRequired(
          undefined,
          `${neededKey} is not set in the demo agent's environment: add it to the agent's ` +
            `definition, then continue`,
        );
      }
      keyTaken = true;
      return {};
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      refuseUnsignedIn();
      if (sessionGate !== null) await gateOpen(sessionGate);
      const sessionId = crypto.randomUUID();
      sessions.set(sessionId, { updates: [], mcpServers: params.mcpServers, turn: null, turns: 0 });
      return { sessionId };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      refuseUnsignedIn();
      const session = sessions.get(params.sessionId);
      if (session === undefined) {
        throw new acp.RequestError(
          -32002,
          `The demo agent has no session ${params.sessionId}: it keeps sessions in memory ` +
            `only, and this process did not make it; start a new session instead`,
          { sessionId: params.sessionId },
        );
      }
      session.mcpServers = params.mcpServers;
      for (const update of session.updates) {
        await client.notify(acp.methods.client.session.update, {
          sessionId: params.sessionId,
          update,
        });
      }
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const session = sessions.get(params.sessionId);
      if (session === undefined) throw acp.RequestError.sessionNotFound(params.sessionId);
      session.turn?.abort();
      const controller = new AbortController();
      session.turn = controller;
      try {
        return await turn(client, params.sessionId, session, params.prompt, controller.signal);
      } finally {
        if (session.turn === controller) session.turn = null;
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    })
    .connect(acp.ndJsonStream(output, Deno.stdin.readable));
}

if (import.meta.main) main();
