/**
 * The parser worker: started by the parser pool (`runtime/parsers/pool.ts`)
 * with no permissions, it parses one file a job — mail with postal-mime,
 * calendars with ical.js — and answers what it read or why it could not, in
 * words. Whatever a file does to the parser, it has nothing to reach: no
 * file, no network, no environment. Bundled into
 * `workers/dist/parser_worker.js` by `deno task build:worker`.
 *
 * @module
 */
import type {
  FromParserWorker,
  ParsedEvent,
  ParsedMessage,
  ParseResult,
  ToParserWorker,
} from "../runtime/parsers/protocol.ts";
import { parseMailMessage } from "./_mail_message.ts";
import { calendarEvents } from "./_calendar_events.ts";

/** The worker's own scope, as far as this module uses it. */
interface ParserScope {
  onmessage: ((event: MessageEvent<ToParserWorker>) => void) | null;
  postMessage(message: FromParserWorker): void;
}

const scope = globalThis as unknown as ParserScope;

scope.onmessage = async (event) => {
  const job = event.data;
  let result: ParseResult<ParsedMessage> | ParseResult<ParsedEvent[]>;
  try {
    result = job.type === "mail"
      ? { ok: true, value: await parseMailMessage(job.bytes, job.bounds) }
      : { ok: true, value: calendarEvents(job.text, job.window, job.bounds) };
  } catch (error) {
    result = { ok: false, reason: reasonOf(job.type, error) };
  }
  scope.postMessage({ type: "done", jobId: job.jobId, result });
};

scope.postMessage({ type: "ready" });

/** Why a parse failed, as a person reads it. */
function reasonOf(type: ToParserWorker["type"], error: unknown): string {
  const said = error instanceof Error ? error.message : String(error);
  const what = type === "mail" ? "mail message" : "calendar";
  return `it could not be read as a ${what}: ${said.slice(0, 500)}`;
}
