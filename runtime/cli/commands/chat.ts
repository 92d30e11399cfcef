/**
 * `sync chat`: what Chat shows of a project, on the command line — every
 * agent session, whoever began it, grouped as Chat groups them (a person's
 * conversations first, then one group per ordering extension), each row
 * followed by what waits on a person, who began it and on what occasion,
 * and what it is about — and `sync chat keep <key>`, which keeps one as a `chat.conversation` record.
 *
 * @module
 */
import {
  type AgentSession,
  type AgentSessionWait,
  orderingExtension,
} from "../../agent_session.ts";
import { begunBy, keepConversation, listSessions, readTranscript } from "../../agents/mod.ts";
import { InvalidInputError, NotFoundError } from "../../errors.ts";
import { printable } from "../../internal/printable.ts";
import { resolveProjectDir } from "../../projects/mod.ts";
import type { Command, CommandContext, CommandSummary } from "../command.ts";
import { formatSummaries } from "../format_summaries.ts";
import { needProject } from "../need.ts";
import { withHost } from "../with_host.ts";

const OPTIONS = { project: { type: "string" } } as const;

const SUMMARY: readonly CommandSummary[] = [
  {
    synopsis: "chat --project <dir>",
    about: "The project's agent sessions, grouped as Chat shows them.",
  },
  {
    synopsis: "chat keep <key> --project <dir>",
    about: "Keeps a session as a chat.conversation record in the project's memory.",
  },
];

/** `sync chat --project <dir>` and `sync chat keep <key> --project <dir>`. */
export const chatCommand: Command = {
  name: "chat",
  summary: SUMMARY,
  usage: `Usage:\n${formatSummaries(SUMMARY)}`,
  options: OPTIONS,
  run: runChat,
  touchesInstallation: true,
};

async function runChat(context: CommandContext<typeof OPTIONS>): Promise<number> {
  const { args, flags, io } = context;
  const dir = needProject(flags.project, context.cwd);
  const [verb, key, ...rest] = args;
  if (rest.length > 0 || (verb !== undefined && (verb !== "keep" || !key))) {
    throw new InvalidInputError(`sync chat takes: no words (the list), or keep <key>`);
  }
  return await withHost(context, async (host) => {
    const project = await resolveProjectDir(dir);
    if (verb === "keep") {
      const memory = await host.projectMemory(project);
      const kept = await keepConversation(
        host.kv,
        memory,
        project,
        key,
        () => new Date(host.now()),
      ).catch((error) => {
        // The app offers only sessions there are; here a key is typed, so say where to find one.
        if (!(error instanceof NotFoundError)) throw error;
        throw new NotFoundError(`${error.message}; sync chat --project ${project} lists them`);
      });
      io.out(`Kept ${kept.key} as ${kept.keptAs}`);
      return 0;
    }
    const sessions = (await listSessions(host.kv, project))
      .sort((a, b) => a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);
    // One group per ordering extension (work its agents ordered in turn included), named
    // as any of its sessions knows it; what no extension ordered leads as Conversations.
    const groups = new Map<string, { heading: string; sessions: typeof sessions }>();
    for (const session of sessions) {
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
