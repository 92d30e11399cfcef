/**
 * The parsers: permissionless Web Workers that read standard formats (MIME
 * mail with postal-mime, iCalendar with ical.js) for applets. They know
 * nothing of who asks; the host's `account.*` functions hand them files.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { htmlToText } from "./html_to_text.ts";
export type { HtmlToTextOptions } from "./html_to_text.ts";
export { PARSER_WORKER_URL, ParserPool } from "./pool.ts";
export type { ParserPoolOptions } from "./pool.ts";
export type { CalendarWindow, ParseResult } from "./protocol.ts";
