/**
 * sync-mcp over Streamable HTTP: what `/mcp` on the owner's app answers.
 *
 * Sessions are stateful: `initialize` makes a session (`Mcp-Session-Id`)
 * bound to one project and one caller, with a server of its own, so that the
 * server can tell the client when the project's tools change
 * (`notifications/tools/list_changed` on the client's GET stream) — a
 * stateless server has no stream to tell it on.
 *
 * Every request carries a Bearer token: the installation's (a person's
 * agent) or a session's ({@linkcode SessionTokens}: an agent Sync started),
 * and the session is used only with the token it was made with. A browser's
 * request must come from the app's own origin. The project is named by the
 * `project` query parameter (an absolute folder) on `initialize`, a folder
 * the app would open (`openableFolder`); a session keeps it. Errors are
 * JSON-RPC errors with a status, never a failed server.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { describeError } from "../internal/describe_error.ts";
import { RecordCursors } from "../memory/mod.ts";
import { recordCursorSecret } from "../host/mod.ts";
import { openableFolder, projectPath, resolveProjectDir } from "../projects/mod.ts";
import type { Source } from "../types.ts";
import { INVALID_PARAMS } from "./invalid_params.ts";
import type { McpHost } from "./mcp_host.ts";
import { MCP_LIMITS, type McpLimits } from "./mcp_limits.ts";
import { ProjectServer } from "./project_server.ts";
import { digest, type SessionTokens } from "./session_tokens.ts";

/** The path the endpoint is served at. */
export const MCP_PATH = "/mcp";

/** Options for {@linkcode McpEndpoint}. */
export interface McpEndpointOptions {
  /** The installation's token: a caller with it is a person's agent. */
  token: string;
  /** The tokens of agent sessions Sync started; none are taken when absent. */
  sessionTokens?: SessionTokens;
  /** Where notices go. */
  log?: (line: string) => void;
  /** Limits; tests pass smaller ones. */
  limits?: McpLimits;
  /**
   * Told when an agent ordered work in a project through `work_order`: the
   * serve's performer looks at the project's outbox then (an order written
   * here leaves no receipt for it to hear).
   */
  workOrdered?: (project: string) => void;
}

/** Who calls, as their token says. */
interface Caller {
  /** The digest of the token. */
  tokenDigest: string;
  /** What the call is attributed to. */
  source: (name?: string) => Source;
  /** The one project a session's token opens; any project for the installation's. */
  project?: string;
}

/** One open session. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: ProjectServer;
  /** The digest of the token it was made with. */
  tokenDigest: string;
  project: string;
  lastUsed: number;
}

/** A JSON-RPC error answer with an HTTP status. */
function rpcError(status: number, code: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/** JSON-RPC's code for a request the server refuses (the SDK uses the same). */
const REFUSED = -32000;

/** Answers `/mcp`. One per app; it holds the open sessions. */
export class McpEndpoint {
  #host: McpHost;
  #token: string;
  #tokenDigest: Promise<string>;
  #sessionTokens: SessionTokens | undefined;
  #log: (line: string) => void;
  #limits: McpLimits;
  #workOrdered: ((project: string) => void) | undefined;
  #cursors: RecordCursors;
  #sessions = new Map<string, Session>();
  #closed = false;

  /**
   * An endpoint over the installation's owner.
   *
   * @param host The owner: its KV, memories, events and handler calls.
   * @param options The installation's token, the session tokens, limits.
   */
  constructor(host: McpHost, options: McpEndpointOptions) {
    this.#host = host;
    this.#token = options.token;
    this.#tokenDigest = digest(options.token);
    this.#sessionTokens = options.sessionTokens;
    this.#log = options.log ?? (() => {});
    this.#limits = options.limits ?? MCP_LIMITS;
    this.#workOrdered = options.workOrdered;
    this.#cursors = new RecordCursors(() => recordCursorSecret(host.kv));
  }

  /** How many sessions are open. */
  get sessionCount(): number {
    return this.#sessions.size;
  }

  /**
   * Answers one request to `/mcp`.
   *
   * @param request The request; its Host was already checked by the app.
   */
  async handle(request: Request): Promise<Response> {
    try {
      return await this.#handle(request);
    } catch (error) {
      const { name, message } = describeError(error);
      this.#log(`[mcp] ${request.method} /mcp failed: ${name}: ${message}`);
      return rpcError(500, -32603, `${name}: ${message}`);
    }
  }

  async #handle(request: Request): Promise<Response> {
    if (this.#closed) return rpcError(503, REFUSED, "Sync is shutting down; connect again later");
    const url = new URL(request.url);
    const origin = request.headers.get("origin");
    const host = request.headers.get("host") ?? url.host;
    if (origin !== null && origin !== `http://${host.toLowerCase()}`) {
      return rpcError(403, REFUSED, `Requests from ${origin} may not use this server`);
    }
    const caller = await this.#caller(request);
    if (caller === null) {
      return rpcError(
        401,
        REFUSED,
        "Missing or wrong token: send Authorization: Bearer <token>, the installation's " +
          "token ($SYNC_HOME/token) or the one your session was given",
      );
    }
    const length = Number(request.headers.get("content-length") ?? 0);
    if (length > this.#limits.maxBodyBytes) {
      return rpcError(
        413,
        REFUSED,
        `The request body is ${length} bytes, more than the ${this.#limits.maxBodyBytes} ` +
          `this server reads`,
      );
    }
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (!session || session.tokenDigest !== caller.tokenDigest) {
        return rpcError(404, REFUSED, `No session ${id}: it ended; initialize a new one`);
      }
      const project = url.searchParams.get("project");
      let named: string | null = null;
      try {
        if (project !== null) named = await resolveProjectDir(projectPath(project));
      } catch (error) {
        return rpcError(400, INVALID_PARAMS, describeError(error).message);
      }
      if (named !== null && named !== session.project) {
        return rpcError(
          400,
          INVALID_PARAMS,
          `Session ${id} is for ${session.project}, not ${project}; initialize a new session ` +
            `for another project`,
        );
      }
      session.lastUsed = this.#host.now();
      return await session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return rpcError(
        400,
        REFUSED,
        `${request.method} /mcp needs an Mcp-Session-Id header; initialize a session first (POST)`,
      );
    }
    return await this.#open(request, url, caller);
  }

  /** Who calls: the installation's token or a session's, or null. */
  async #caller(
    request: Request,
  ): Promise<Caller | null> {
    const header = request.headers.get("authorization");
    const match = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return null;
    const given = await digest(match[1]);
    // Digests are compared, so the time taken says nothing of the token.
    if (given === await this.#tokenDigest) {
      return {
        tokenDigest: given,
        source: (name) => ({ kind: "agent", ...(name ? { name } : {}) }),
      };
    }
    const source = await this.#sessionTokens?.sourceOf(match[1]) ?? null;
    const project = await this.#sessionTokens?.projectOf(match[1]) ?? null;
    if (source === null || project === null) return null;
    return { tokenDigest: given, source: () => structuredClone(source), project };
  }

  /** Makes a session for the project the request names, and answers its `initialize`. */
  async #open(
    request: Request,
    url: URL,
    caller: Caller,
  ): Promise<Response> {
    const named = url.searchParams.get("project");
    let project: string;
    try {
      // The app's own rules, in its words, before anything is written there:
      // an absolute path, not the filesystem root, not the home folder, only
      // a folder one can write.
      project = await openableFolder(projectPath(named ?? undefined));
    } catch (error) {
      return rpcError(400, INVALID_PARAMS, describeError(error).message);
    }
    // A session Sync started may reach its own project only, whatever it names.
    if (caller.project !== undefined && caller.project !== project) {
      return rpcError(
        403,
        REFUSED,
        `This token was given to an agent session in ${caller.project}; it opens no other project`,
      );
    }
    this.#makeRoom();
    const server = await ProjectServer.open(this.#host, {
      project,
      source: caller.source,
      cursors: this.#cursors,
      log: this.#log,
      workOrdered: this.#workOrdered,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: this.#limits.maxBodyBytes,
      onsessioninitialized: (id: string) => {
        this.#sessions.set(id, {
          transport,
          server,
          tokenDigest: caller.tokenDigest,
          project,
          lastUsed: this.#host.now(),
        });
      },
      onsessionclosed: (id: string) => {
        this.#sessions.delete(id);
        server.close().catch(() => {});
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Anything but an `initialize` made no session: nothing is kept of it.
    if (transport.sessionId === undefined || !this.#sessions.has(transport.sessionId)) {
      await server.close();
    }
    return response;
  }

  /** Closes sessions unused too long, and the one unused longest when there are too many. */
  #makeRoom(): void {
    const now = this.#host.now();
    const byUse = [...this.#sessions].sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    let open = byUse.length;
    for (const [id, session] of byUse) {
      if (now - session.lastUsed < this.#limits.sessionIdleMs && open < this.#limits.maxSessions) {
        break;
      }
      this.#sessions.delete(id);
      open--;
      session.server.close().catch(() => {});
    }
  }

  /** Closes every session (their streams end); later requests are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
  }
}
