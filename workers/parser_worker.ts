/**
 * The parser process: started by the parser pool (`runtime/parsers/pool.ts`)
 * as `deno run` with no permission at all and a heap limit of its own, it
 * parses one file a job — mail with postal-mime, calendars with ical.js —
 * and answers what it read or why it could not, in words. Whatever a file
 * does to the parser, it has nothing to reach: no file, no network, no
 * environment; a loop is ended by the pool's SIGKILL, an allocation without
 * end by V8's heap limit. Jobs come on stdin and answers go on stdout, each
 * a frame (`runtime/parsers/protocol.ts`). Bundled into
 * `workers/dist/parser_worker.js` by `deno task build:worker`.
 *
 * @module
 */
import {
  fromBase64,
  type FromParserWorker,
  type ParsedEvent,
  type ParsedMessage,
  type ParseResult,
  readFrames,
  type ToParserWorker,
  writeFrame,
} from "../runtime/parsers/protocol.ts";
import { parseMailMessage } from "./_mail_message.ts";
import { calendarEvents } from "./_calendar_events.ts";

const stdout = Deno.stdout.writable.getWriter();
await writeFrame(stdout, { type: "ready" } satisfies FromParserWorker);
for await (const frame of readFrames(Deno.stdin.readable)) {
  const job = frame as ToParserWorker;
  await writeFrame(stdout, { type: "done", jobId: job.jobId, result: await answer(job) });
}
// Stdin closed: the pool is gone or done with this process.
Deno.exit(0);

/** One job's answer. */
async function answer(
  job: ToParserWorker,
): Promise<ParseResult<ParsedMessage> | ParseResult<ParsedEvent[]> | ParseResult<number>> {
  try {
    if (job.type === "mail") {
      return { ok: true, value: await parseMailMessage(fromBase64(job.bytes), job.bounds) };
    }
    if (job.type === "calendar") {
      return { ok: true, value: calendarEvents(job.text, job.window, job.bounds) };
    }
    // A probe: what this process may read (nothing; the pool's tests ask).
    return { ok: true, value: (await Deno.readFile(job.path)).byteLength };
  } catch (error) {
    return { ok: false, reason: reasonOf(job.type, error) };
  }
}

/** Why a parse failed, as a person reads it. */
function reasonOf(type: ToParserWorker["type"], error: unknown): string {
  const said = error instanceof Error ? error.message : String(error);
  const what = type === "mail" ? "a mail message" : type === "calendar" ? "a calendar" : "a file";
  return `it could not be read as ${what}: ${said.slice(0, 500)}`;
}
