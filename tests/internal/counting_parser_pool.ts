/**
 * A real parser pool that counts the files it parses and lets a test act
 * between a task step's listing and its parse (a file vanishing mid-read, an
 * account changed mid-run).
 *
 * @module
 */
import type { ParsedEvent, ParsedMessage } from "../../runtime/extension_api/service.ts";
import { type CalendarWindow, type ParseResult, ParserPool } from "../../runtime/parsers/mod.ts";

/** Called before each file is parsed, with how many were parsed before it. */
export type BeforeParse = (parsedBefore: number) => Promise<void> | void;

/** The platform's parser pool, counting mail and calendar files parsed. */
export class CountingParserPool extends ParserPool {
  /** Mail files parsed. */
  mail = 0;
  /** Calendar files parsed. */
  calendars = 0;
  /** Set by a test to act before the next parses; it stays until cleared. */
  beforeParse: BeforeParse | undefined;

  override async parseMail(files: Uint8Array[]): Promise<ParseResult<ParsedMessage>[]> {
    for (const _ of files) {
      const before = this.mail++;
      await this.beforeParse?.(before);
    }
    return await super.parseMail(files);
  }

  override async parseCalendar(
    texts: string[],
    window: CalendarWindow,
  ): Promise<ParseResult<ParsedEvent[]>[]> {
    for (const _ of texts) {
      const before = this.calendars++;
      await this.beforeParse?.(before);
    }
    return await super.parseCalendar(texts, window);
  }
}
