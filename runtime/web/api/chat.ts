/**
 * Chat's API (`chat_types.ts` lists its routes and shapes): a project's
 * sessions grouped as Chat shows them, one session with its transcript, and
 * what a person does in one — begin a conversation, type the next turn,
 * cancel, continue, keep, answer a permission, archive or delete it. Every state-changing route
 * takes `"project"` in its JSON body. What is performed is the
 * {@linkcode WorkPerformer}'s; these routes read and check what is asked.
 *
 * A session's source is set when it is ordered and never edited: no route
 * takes one.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { type AgentSession, orderingExtension } from "../../agent_session.ts";
import type { SessionView, WorkPerformer } from "../../agents/mod.ts";
import { InvalidInputError } from "../../errors.ts";
import { RECORD_LIMITS } from "../../limits.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type {
  ChatDeleteResponse,
  ChatGroup,
  ChatListResponse,
  ChatRow,
  ChatSessionResponse,
} from "./chat_types.ts";

/**
 * Chat's routes, to mount at `/api/chat`.
 *
 * @param work What performs the sessions.
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function chatRoutes(work: WorkPerformer): Hono {
  const routes = new Hono();
  // A key too long for Deno KV would reach a read and answer 500: every
  // route naming a session checks its key first.
  routes.use("/sessions/:key", checkSessionKey);
  routes.use("/sessions/:key/*", checkSessionKey);
  routes.get("/", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    return c.json(groupSessions(project, await work.list(project)) satisfies ChatListResponse);
  });
  routes.get("/sessions/:key", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    return answer(c, await work.view(project, c.req.param("key")));
  });
  routes.post("/sessions", async (c) => {
    const body = await jsonObjectBody(
      c,
      '{ "project": "<folder>", "agent": "<name>", "text": "…" }',
    );
    const project = await projectFolder(body.project);
    const agent = stringField(body, "agent", "the agent's name, such as demo");
    const text = stringField(body, "text", "the first turn");
    return answer(c, await work.begin(project, agent, text));
  });
  routes.post("/sessions/:key/prompt", async (c) => {
    const body = await jsonObjectBody(c, '{ "project": "<folder>", "text": "…" }');
    const project = await projectFolder(body.project);
    const text = stringField(body, "text", "the next turn");
    return answer(c, await work.prompt(project, c.req.param("key"), text));
  });
  routes.post("/sessions/:key/cancel", async (c) => {
    const project = await projectOf(c);
    return answer(c, await work.cancel(project, c.req.param("key")));
  });
  routes.post("/sessions/:key/continue", async (c) => {
    const project = await projectOf(c);
    return answer(c, await work.continue(project, c.req.param("key")));
  });
  routes.post("/sessions/:key/keep", async (c) => {
    const project = await projectOf(c);
    const view = await work.keep(project, c.req.param("key"));
    return c.json({ ...answerOf(view), kept: view.kept } satisfies ChatSessionResponse);
  });
  routes.post("/sessions/:key/archive", async (c) => {
    const body = await jsonObjectBody(c, '{ "project": "<folder>", "archived": true | false }');
    const project = await projectFolder(body.project);
    const archived = body.archived ?? true;
    if (typeof archived !== "boolean") {
      throw new InvalidInputError(
        `"archived": true to archive the conversation, false to restore it; got ${
          JSON.stringify(archived)
        }`,
      );
    }
    return answer(c, await work.archive(project, c.req.param("key"), archived));
  });
  routes.post("/sessions/:key/delete", async (c) => {
    const project = await projectOf(c);
    const deleted = await work.delete(project, c.req.param("key"));
    return c.json(
      {
        deleted: { key: deleted.key, title: deleted.title, keptAs: deleted.keptAs },
      } satisfies ChatDeleteResponse,
    );
  });
  routes.post("/sessions/:key/permission", async (c) => {
    const takes = '{ "project": "<folder>", "requestId": "…", "optionId": "…" | null }';
    const body = await jsonObjectBody(c, takes);
    const project = await projectFolder(body.project);
    const requestId = stringField(body, "requestId", "the permission request answered");
    const optionId = body.optionId;
    if (optionId !== null && (typeof optionId !== "string" || optionId === "")) {
      throw new InvalidInputError(
        `"optionId": one of the options the agent offered, or null to cancel the request; ` +
          `got ${JSON.stringify(optionId ?? null)}`,
      );
    }
    return answer(c, await work.answer(project, c.req.param("key"), requestId, optionId));
  });
  return routes;
}

async function checkSessionKey(c: Context, next: () => Promise<void>): Promise<void> {
  const problem = sessionKeyProblem(c.req.param("key") ?? "");
  if (problem !== null) throw new InvalidInputError(`This is not a session's key: ${problem}`);
  await next();
}

/**
 * What is wrong with a session key named in a path, or null: it is at most
 * as long as a record key (Keep writes it under `chat.conversation/`), of
 * printable characters.
 */
function sessionKeyProblem(key: string): string | null {
  const length = [...key].length;
  if (length > RECORD_LIMITS.maxKeyChars) {
    return `${length} characters, at most ${RECORD_LIMITS.maxKeyChars} allowed`;
  }
  if (!key.isWellFormed()) return "it contains an unpaired surrogate";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return "it contains a control character";
  return null;
}

async function projectOf(c: Context): Promise<string> {
  const body = await jsonObjectBody(c, '{ "project": "<folder>" }');
  return await projectFolder(body.project);
}

function stringField(body: Record<string, unknown>, name: string, what: string): string {
  const value = body[name];
  if (typeof value !== "string" || value.trim() === "") {
    throw new InvalidInputError(`"${name}": required: ${what}`);
  }
  return value;
}

function answer(c: Context, view: SessionView): Response {
  return c.json(answerOf(view) satisfies ChatSessionResponse);
}

function answerOf(view: SessionView): ChatSessionResponse {
  return {
    session: view.session,
    transcript: view.transcript,
    omitted: view.omitted,
    activity: view.activity,
  };
}

/**
 * A project's sessions as Chat lists them: what no extension ordered first,
 * then one group per ordering extension, the group with the newest session
 * first; rows newest first. A row's group is decided by who ordered it,
 * which never changes. Archived sessions are listed apart, newest first.
 *
 * @param project The project's resolved folder.
 * @param sessions Its sessions' pointers.
 */
export function groupSessions(project: string, sessions: AgentSession[]): ChatListResponse {
  const newestFirst = (a: ChatRow, b: ChatRow) =>
    a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
  const conversations: ChatRow[] = [];
  const archived: ChatRow[] = [];
  const groups = new Map<string, ChatGroup>();
  for (const session of sessions) {
    const row: ChatRow = {
      key: session.key,
      title: session.title,
      state: session.state,
      agent: session.agent,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
      waitsFor: session.waitingFor?.kind ?? null,
      ...(session.state === "failed" && session.error?.name === "Cancelled"
        ? { cancelled: true }
        : {}),
    };
    if (session.archivedAt) {
      archived.push(row);
      continue;
    }
    // Work an agent ordered while it performed an extension's work is that extension's too.
    const extension = orderingExtension(session);
    if (extension === null) {
      conversations.push(row);
      continue;
    }
    let group = groups.get(extension);
    if (!group) {
      group = { extensionId: extension, name: session.extensionName ?? extension, rows: [] };
      groups.set(extension, group);
    }
    if (group.name === extension && session.extensionName) group.name = session.extensionName;
    group.rows.push(row);
  }
  conversations.sort(newestFirst);
  archived.sort(newestFirst);
  for (const group of groups.values()) group.rows.sort(newestFirst);
  const ordered = [...groups.values()].sort((a, b) => newestFirst(a.rows[0], b.rows[0]));
  return { project, conversations, groups: ordered, archived };
}
