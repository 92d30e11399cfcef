/**
 * The owner's local API: while `sync serve` runs it owns the installation,
 * and the CLI sends it the commands that touch the installation rather than
 * opening the installation itself. `POST /api/owner/commands` takes the
 * command's words and the folder the person typed them in, runs the command
 * in this process, and streams back what it writes, line by line, as JSON
 * lines (`{"out": …}`, `{"err": …}`), ending with `{"exit": <code>}`. A
 * stream that ends without its exit line tells the CLI that the serve
 * stopped before the command finished.
 *
 * Only the installation's token as a Bearer header opens it (compared in
 * constant time); the cookie the browser holds does not.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { WEB_LIMITS } from "../../limits.ts";
import { nestedDeeperThan } from "../json_depth.ts";

/** What the CLI sends: the words after `sync`, and where the person typed them. */
export interface CommandRequest {
  /** The words after `sync`, such as `["call", "hello", "hello.greet", "--project", "p"]`. */
  args: string[];
  /** The folder relative paths start from, as the person knows it (absolute). */
  cwd: string;
  /**
   * The secret the person gave where they typed the command (a credential,
   * read from stdin or a prompt), carried beside the words and never as one.
   */
  secret?: string;
}

/** Where a command run for the CLI writes: its stdout and stderr lines. */
export interface CommandOutput {
  /** One line (or several joined by `\n`) for the person's stdout. */
  out: (line: string) => void;
  /** One line (or several joined by `\n`) for the person's stderr. */
  err: (line: string) => void;
}

/** Runs a CLI command in the owner; answers its exit code. The CLI's own table of commands. */
export type CommandRunner = (request: CommandRequest, output: CommandOutput) => Promise<number>;

/** One line of the answer's stream. */
export type CommandLine = { out: string } | { err: string } | { exit: number };

/** Most words one command may send. */
const MAX_ARGS = 256;
/** Characters of a command's secret (a credential) at most. */
const MAX_SECRET_CHARS = 64 * 1024;

/**
 * The owner's command route, to mount at `/api/owner`.
 *
 * @param token The installation's token, which the request must carry as `Authorization: Bearer`.
 * @param run Runs a command (the CLI's table, handed down by `sync serve`).
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name; only `app.ts` mounts it.
 * @internal
 */
export function commandRoutes(token: string, run: CommandRunner): Hono {
  const routes = new Hono();
  routes.use("*", bearerAuth({ token }));
  routes.post("/commands", async (c) => {
    if (!/^application\/json(;|$)/.test(c.req.header("content-type") ?? "")) {
      return c.json({ error: "POST /api/owner/commands takes application/json" }, 415);
    }
    let body: unknown;
    try {
      const text = await c.req.text();
      if (nestedDeeperThan(text, WEB_LIMITS.maxJsonDepth)) {
        return c.json({
          error: `POST /api/owner/commands takes JSON nested at most ${WEB_LIMITS.maxJsonDepth} ` +
            `levels deep, and this body is nested deeper`,
        }, 400);
      }
      body = JSON.parse(text);
    } catch {
      return c.json({ error: "POST /api/owner/commands takes JSON: { args, cwd }" }, 400);
    }
    const request = readRequest(body);
    if (typeof request === "string") return c.json({ error: request }, 400);
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // The person may stop the CLI mid-command; the command runs on to its
        // end here (a call commits or not, and leaves its receipt), unheard.
        const send = (line: CommandLine) => {
          try {
            controller.enqueue(encoder.encode(JSON.stringify(line) + "\n"));
          } catch { /* the CLI went away */ }
        };
        run(request, { out: (text) => send({ out: text }), err: (text) => send({ err: text }) })
          .catch((error) => {
            send({ err: `sync: unexpected failure: ${(error as Error)?.stack ?? error}` });
            return 1;
          })
          .then((code) => send({ exit: code }))
          .finally(() => {
            try {
              controller.close();
            } catch { /* already closed */ }
          });
      },
    });
    return new Response(stream, {
      headers: { "content-type": "application/x-ndjson", "cache-control": "no-store" },
    });
  });
  return routes;
}

/** The request, or what is wrong with it. */
function readRequest(body: unknown): CommandRequest | string {
  const { args, cwd, secret } = (body ?? {}) as { args?: unknown; cwd?: unknown; secret?: unknown };
  if (!Array.isArray(args) || !args.every((word) => typeof word === "string")) {
    return '"args" must be the list of words after sync';
  }
  if (args.length === 0 || args.length > MAX_ARGS) {
    return `"args" must hold from 1 to ${MAX_ARGS} words`;
  }
  if (typeof cwd !== "string" || !isAbsolute(cwd)) {
    return '"cwd" must be the absolute folder the command was typed in';
  }
  if (secret !== undefined && (typeof secret !== "string" || secret.length > MAX_SECRET_CHARS)) {
    return `"secret" must be a string of at most ${MAX_SECRET_CHARS} characters`;
  }
  return secret === undefined ? { args, cwd } : { args, cwd, secret };
}
