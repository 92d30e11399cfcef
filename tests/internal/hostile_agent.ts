/**
 * A small ACP agent that misbehaves as told, for tests: raw JSON-RPC lines
 * on stdin and stdout, no SDK, so it can send what a well-behaved agent
 * never would. Its mode is its first argument; the turn's prompt text picks
 * what it does within a turn.
 *
 * Modes: `ok` (answers everything), `big-session-id` (a session id of
 * 200,000 characters), `big-sign-in` (sign-in methods with huge names, and
 * `session/new` asks for one), `no-new` (never answers `session/new`).
 *
 * Turns (the prompt's first word): `big-tool` (a tool call and a message
 * with every id, title and path huge), `big-error` (answers with an error
 * of 200,000 characters), `ignore-cancel` (never ends, not even when
 * cancelled), `two-asks` (asks two permissions at once, ends when both are
 * answered), `big-ask` (asks one permission with 5,000 options of large
 * ids and names). Anything else ends the turn at once.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { AgentCommand } from "../../runtime/agents/mod.ts";

/**
 * The command that starts this agent in a mode.
 *
 * @param mode One of the modes above.
 */
export function hostileAgentCommand(mode: string): AgentCommand {
  return {
    command: Deno.execPath(),
    args: ["run", "--quiet", fileURLToPath(import.meta.url), mode],
  };
}

// deno-lint-ignore no-explicit-any
type Message = any;

async function main(mode: string): Promise<void> {
  const encoder = new TextEncoder();
  const writeLine = async (message: unknown) => {
    const bytes = encoder.encode(JSON.stringify(message) + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
  };
  let sessionId = "s1";
  /** How many times the client called `authenticate`. */
  let authenticated = 0;
  let nextId = 1_000;
  const pending = new Map<number, (result: Message) => void>();
  const request = (method: string, params: unknown): Promise<Message> =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      writeLine({ jsonrpc: "2.0", id, method, params });
    });
  const update = (update: unknown) =>
    writeLine({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update } });
  const ask = (toolCallId: string, options: unknown[]) =>
    request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId, title: `May I ${toolCallId}?` },
      options,
    });

  async function turn(id: number, text: string): Promise<void> {
    const word = text.trim().split(/\s+/)[0];
    const end = () => writeLine({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });
    if (word === "big-tool") {
      const huge = (c: string) => c.repeat(300_000);
      await update({
        sessionUpdate: "tool_call",
        toolCallId: huge("T"),
        title: huge("t"),
        status: "pending",
        locations: Array.from({ length: 100 }, () => ({ path: huge("P") })),
      });
      await update({
        sessionUpdate: "agent_message_chunk",
        messageId: huge("M"),
        content: { type: "text", text: "hello" },
      });
      return end();
    }
    if (word === "big-error") {
      return writeLine({
        jsonrpc: "2.0",
        id,
        error: { code: -32603, message: "E".repeat(200_000) },
      });
    }
    if (word === "ignore-cancel") return;
    if (word === "two-asks") {
      const options = [{ optionId: "allow", name: "Allow", kind: "allow_once" }];
      await Promise.all([ask("first", options), ask("second", options)]);
      return end();
    }
    if (word === "big-ask") {
      const options = Array.from({ length: 5_000 }, (_, i) => ({
        optionId: `${i}-${"o".repeat(300)}`,
        name: "N".repeat(5_000),
        kind: "allow_once",
      }));
      const answer = await ask("big", options);
      await update({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `answered ${JSON.stringify(answer.outcome)}` },
      });
      return end();
    }
    return end();
  }

  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of Deno.stdin.readable) {
    buffer += decoder.decode(chunk, { stream: true });
    let at;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (line.trim() === "") continue;
      const message: Message = JSON.parse(line);
      if (message.id !== undefined && message.method === undefined) {
        pending.get(message.id)?.(message.result ?? { error: message.error });
        pending.delete(message.id);
        continue;
      }
      const answer = (result: unknown) => writeLine({ jsonrpc: "2.0", id: message.id, result });
      switch (message.method) {
        case "initialize": {
          const authMethods = mode === "big-sign-in"
            ? Array.from({ length: 50 }, (_, i) => ({
              id: `m${i}`,
              name: "N".repeat(200_000),
              description: "D".repeat(200_000),
            }))
            : mode === "many-sign-ins"
            ? [
              // A terminal method whose variable's name would run a command if pasted raw.
              {
                type: "terminal",
                id: "rigged",
                name: "Rigged",
                args: ["--login"],
                env: { "X=1; touch /tmp/sync-pwned; Y": "v" },
              },
              // One that would run the agent's program with a loader's variable set.
              {
                type: "terminal",
                id: "preload",
                name: "Preload",
                args: ["login"],
                env: { LD_PRELOAD: "/tmp/evil.so" },
              },
              // One whose words a shell must read back as they are.
              {
                type: "terminal",
                id: "quoted",
                name: "Quoted",
                args: ["$(id)", "`id`", "it's"],
                env: { FOO: "$(id)" },
              },
              // A "key" that is a loader's variable: a way to run code of the agent's choice.
              { type: "env_var", id: "loader", name: "Loader", vars: [{ name: "LD_PRELOAD" }] },
              // Thousands of key methods, each reading a variable that is set.
              ...Array.from({ length: 2_000 }, (_, i) => ({
                type: "env_var",
                id: `key${i}`,
                name: `Key ${i}`,
                vars: [{ name: "HOME" }],
              })),
            ]
            : [];
          await answer({
            protocolVersion: 1,
            agentCapabilities: { loadSession: false },
            authMethods,
            agentInfo: { name: "hostile", version: "1" },
          });
          break;
        }
        case "authenticate":
          authenticated++;
          await writeLine({
            jsonrpc: "2.0",
            id: message.id,
            error: { code: -32603, message: "no such key" },
          });
          break;
        case "session/new":
          if (mode === "no-new") break;
          if (mode === "many-sign-ins") {
            await writeLine({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32000, message: `authenticate was called ${authenticated} times` },
            });
            break;
          }
          if (mode === "big-sign-in") {
            await writeLine({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32000, message: "A".repeat(200_000) },
            });
            break;
          }
          if (mode === "big-session-id") sessionId = "S".repeat(200_000);
          await answer({ sessionId });
          break;
        case "session/prompt":
          turn(message.id, message.params.prompt.map((b: Message) => b.text ?? "").join(""));
          break;
        case "session/cancel":
          break;
        default:
          if (message.id !== undefined) {
            await writeLine({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32601, message: "Method not found" },
            });
          }
      }
    }
  }
}

if (import.meta.main) await main(Deno.args[0] ?? "ok");
