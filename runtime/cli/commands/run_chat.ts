/**
 * What `sync chat` does, in the installation's owner: lists a project's
 * agent sessions as Chat groups them, or keeps, archives, restores or
 * deletes one — through the serve's performer of conversations when the
 * serve runs the command, else in the installation's storage here.
 *
 * @module
 */
import {
  type AgentSession,
  type AgentSessionWait,
  orderingExtension,
} from "../../agent_session.ts";
import {
  archiveSession,
  begunBy,
  deleteSession,
  keepConversation,
  listSessions,
  readTranscript,
} from "../../agents/mod.ts";
import { NotFoundError } from "../../errors.ts";
import { printable } from "../../internal/printable.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { CommandContext } from "../command.ts";
import { withHost } from "../with_host.ts";

/** What `sync chat` was asked, read from its words. */
export interface ChatRequest {
  /** The project folder, resolved from where the person typed the command. */
  dir: string;
  /** `keep`, `archive`, `restore` or `delete`; absent for the list. */
  verb?: string;
  /** The session's key, with a verb. */
  key: string;
}

/**
 * Runs `sync chat`.
 *
 * @param request What was asked.
 * @param context Where it writes, and how it reaches the installation.
 * @returns The exit code.
 */
export async function runChat(
  { dir, verb, key }: ChatRequest,
  context: CommandContext,
): Promise<number> {
  const { io } = context;
  // The serve's performer, when the serve runs this command: what it holds live is changed through it.
  const work = context.installation?.kind === "served" ? context.installation.work : undefined;
  return await withHost(context, async (host) => {
    const project = await resolveProjectDir(dir);
    // A key is typed here, not chosen: a key that names nothing says where to find one.
    const named = (error: unknown): never => {
      if (!(error instanceof NotFoundError)) throw error;
      throw new NotFoundError(`${error.message}; sync chat --project ${project} lists them`);
    };
    if (verb === "archive" || verb === "restore") {
      const archived = verb === "archive";
      const now = () => new Date(host.now());
      const session = await (work
        ? work.archive(project, key, archived).then((view) =>
          view.session
        )
        : archiveSession(host.kv, project, key, archived, now)).catch(named);
      io.out(
        archived
          ? `Archived ${session.key}: Chat lists it under Archived; sync chat restore ${session.key} brings it back`
          : `Restored ${session.key} to Chat's list`,
      );
      return 0;
    }
    if (verb === "delete") {
      const deleted =
        await (work ? work.delete(project, key) : deleteSession(host.kv, project, key))
          .catch(named);
      io.out(
        `Deleted ${deleted.key} and its transcript` +
          (deleted.keptAs ? `; the record ${deleted.keptAs} stays in the project` : ""),
      );
      return 0;
    }
    if (verb === "keep") {
      const { session, kept } = await (work ? work.keep(project, key) : keepConversation(
        host.kv,
        await host.projectMemory(project),
        project,
        key,
        () => new Date(host.now()),
      )).catch(named);
      io.out(
        kept.written
          ? `Kept ${session.key} as ${kept.key}, revision ${kept.revision}`
          : `Nothing changed since ${session.key} was kept: ${kept.key} stays at revision ` +
            `${kept.revision}`,
      );
      return 0;
    }
    const sessions = (await listSessions(host.kv, project))
      .sort((a, b) => a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);
    // One group per ordering extension (work its agents ordered in turn included), named
    // as any of its sessions knows it; what no extension ordered leads as Conversations.
    const groups = new Map<string, { heading: string; sessions: typeof sessions }>();
    const archived = sessions.filter((s) => s.archivedAt);
    for (const session of sessions) {
      if (session.archivedAt) continue;
      const extension = orderingExtension(session) ?? "";
      const group = groups.get(extension) ??
        { heading: extension === "" ? "Conversations" : extension, sessions: [] };
      if (extension !== "" && group.heading === extension && session.extensionName) {
        group.heading = session.extensionName;
      }
      group.sessions.push(session);
      groups.set(extension, group);
    }
    const ordered = [...groups.entries()].sort(([a], [b]) => a === "" ? -1 : b === "" ? 1 : 0);
    if (archived.length > 0) {
      ordered.push(["archived", { heading: "Archived", sessions: archived }]);
    }
    for (const [, { heading, sessions: rows }] of ordered) {
      io.out(printable(heading));
      for (const s of rows) {
        io.out(`  ${s.key}\t${s.state}\t${printable(s.agent)}\t${printable(s.title)}`);
        // What waits on a person first; then who began it, and what it is about.
        const why = await whyItStands(host.kv, s);
        if (why) io.out(`    ${why}`);
        const pending = s.pending?.length ?? 0;
        if (pending > 0) {
          io.out(
            `    ${pending} ${pending === 1 ? "message waits" : "messages wait"} to be sent ` +
              `once the agent's session opens`,
          );
        }
        io.out(`    ${printable(begunBy(s))}${describedAs(s)}`);
        if (s.about) io.out(`    About ${printable(s.about)}`);
      }
    }
    if (sessions.length === 0) io.out("No agent sessions in this project yet.");
    return 0;
  });
}

/** What the handler that began a session does, in its package's words, after a dash; or nothing. */
function describedAs(session: AgentSession): string {
  const { source } = session;
  return source.kind === "handler" && source.description
    ? ` — ${printable(source.description)}`
    : "";
}

/**
 * Why a session stands where it is, for the line under its row: what a
 * waiting one waits for and where a person gives it, or why it failed or
 * was interrupted; null when nothing waits on a person.
 */
async function whyItStands(kv: Deno.Kv, session: AgentSession): Promise<string | null> {
  if (session.state === "waiting" && session.waitingFor) {
    return await describeWait(kv, session, session.waitingFor);
  }
  if (session.error) {
    // The message says what happened and what to do; the error's class name would only lead it.
    return firstLineOf(session.error.message, session.error.stderrTail);
  }
  if (session.state === "failed") return "failed; no reason was kept";
  return null;
}

/** The most characters of a reason's first line `sync chat` prints. */
const MAX_REASON_LINE = 500;

/**
 * A failure's reason as one row's line: its first line (the known cause and
 * fix when Sync knows one, else what happened and the agent's last line on
 * stderr), printable and cut short, saying where the rest is when there is
 * more than that line.
 */
function firstLineOf(message: string, stderrTail: string | undefined): string {
  const [first = "", ...rest] = message.split("\n");
  const line = first.length <= MAX_REASON_LINE ? first : `${first.slice(0, MAX_REASON_LINE - 1)}…`;
  const more = line !== first || rest.some((l) => l.trim() !== "") ||
    (stderrTail ?? "").trim() !== "";
  return printable(line) +
    (more ? " (sync chat shows the first line only: the app's Chat shows all of it)" : "");
}

/** What a waiting session waits for, and where a person answers it. */
async function describeWait(
  kv: Deno.Kv,
  session: AgentSession,
  wait: AgentSessionWait,
): Promise<string> {
  switch (wait.kind) {
    case "permission": {
      // What it asks is in the transcript's permission entry of the same request.
      const { entries } = await readTranscript(kv, session.project, session.key);
      const asked = entries.findLast((entry) =>
        entry.kind === "permission" && entry.requestId === wait.requestId
      );
      const what = asked?.kind === "permission" ? `: ${printable(asked.title)}` : "";
      return `asks permission${what}; answer it in the app's Chat`;
    }
    case "sign-in":
      // The agent's words end by saying to continue once signed in: a person does so in Chat.
      return `waits for a sign-in: ${printable(wait.text)}, in the app's Chat`;
    default: {
      const unknown: never = wait;
      return `waits for ${printable(JSON.stringify(unknown))}`;
    }
  }
}
