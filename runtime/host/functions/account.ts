/**
 * The `account` host functions: what a device's task step reaches of the
 * account a person connected: its folder, read-only (list, read, parse mail
 * and calendars in the parser pool), or its remote origin (fetch, with the
 * credential the host adds). They act only in a call that carries the
 * account (`HostFunctionContext.account`, set by the task runner).
 *
 * @module
 */
import {
  InvalidInputError,
  PayloadTooLargeError,
  PermissionDeniedError,
  SyncError,
  TransientError,
} from "../../errors.ts";
import type { NetResponse, Parsed } from "../../extension_api/service.ts";
import { ACCOUNT_LIMITS, type HandlerLimits, PARSER_LIMITS } from "../../limits.ts";
import type { ParseResult, ParserPool } from "../../parsers/mod.ts";
import type { AccountGrant } from "../account_grant.ts";
import type { HostFunction, HostFunctionContext } from "../host_function.ts";
import {
  checkAccountFolder,
  type FileForParse,
  parsePaths,
  readAccountText,
  readForParse,
} from "./_account_folder.ts";
import { listAccount, type ListOptions } from "./_account_listing.ts";
import { accountFetch } from "./_account_fetch.ts";
import { maxNetFetchAnswerBytes } from "./net_fetch.ts";

/** The argument of `account.parseCalendar`: the paths and the window. */
export interface ParseCalendarArgs {
  /** Relative to the account folder. */
  paths: unknown;
  /** `from` (ISO 8601) and `days`. */
  window: { from: string; days: number };
}

/** The `account` host functions, by the name the extension API gives each. */
export const account: {
  /** `account.list({ under?, cursor?, recursive? })`: a page of the folder's entries. */
  readonly list: HostFunction<ListOptions>;
  /** `account.read(path)`: a file of the folder as text. */
  readonly read: HostFunction<unknown>;
  /** `account.parseMail(paths)`: mail files read by the parsers. */
  readonly parseMail: HostFunction<unknown>;
  /** `account.parseCalendar(paths, window)`: calendar files' occurrences in the window. */
  readonly parseCalendar: HostFunction<ParseCalendarArgs>;
  /** `account.fetch(request)`: a request to the remote account's origin, credential added. */
  readonly fetch: HostFunction<unknown>;
} = {
  list: {
    name: "account.list",
    reach: "reads",
    permission: "account.folder",
    parse(args) {
      const options = (args ?? {}) as ListOptions;
      if (typeof options !== "object" || Array.isArray(options)) {
        throw new InvalidInputError("account.list() takes { under?, cursor?, recursive? }");
      }
      if (options.recursive !== undefined && typeof options.recursive !== "boolean") {
        throw new InvalidInputError("account.list(): recursive is true or false");
      }
      return options;
    },
    // Every path may be six characters of JSON a character, with its entry's other fields.
    maxAnswerBytes: () => ACCOUNT_LIMITS.maxListEntries * (6 * ACCOUNT_LIMITS.maxPathChars + 128),
    async run(options, context) {
      return await listAccount(folderOf("account.list", context), options, {
        yieldTo: context.background,
      });
    },
  },
  read: {
    name: "account.read",
    reach: "reads",
    permission: "account.folder",
    parse: (args) => args,
    maxAnswerBytes: () => 6 * ACCOUNT_LIMITS.maxReadBytes + 64,
    async run(path, context) {
      return await readAccountText(folderOf("account.read", context), path);
    },
  },
  parseMail: {
    name: "account.parseMail",
    reach: "reads",
    permission: "account.folder",
    parse: (args) => args,
    maxAnswerBytes: () => ACCOUNT_LIMITS.maxParseAnswerChars,
    async run(paths, context) {
      const fn = "account.parseMail";
      const folder = folderOf(fn, context);
      const lanes = context.parsers?.size ?? 1;
      return await parseEach(fn, folder, paths, PARSER_LIMITS.maxMailBytes, lanes, {
        parse: async (bytes) => (await parsersOf(fn, context).parseMail([bytes]))[0],
        signal: context.signal,
      });
    },
  },
  parseCalendar: {
    name: "account.parseCalendar",
    reach: "reads",
    permission: "account.folder",
    parse(args) {
      const [paths, window] = Array.isArray(args) ? args : [];
      if (!window || typeof window !== "object") {
        throw new InvalidInputError(
          "account.parseCalendar() takes (paths, { from, days }): the paths and the window",
        );
      }
      return { paths, window } as ParseCalendarArgs;
    },
    maxAnswerBytes: () => ACCOUNT_LIMITS.maxParseAnswerChars,
    async run({ paths, window }, context) {
      const fn = "account.parseCalendar";
      const folder = folderOf(fn, context);
      const parsers = parsersOf(fn, context);
      // A window that is none is refused before any file is read.
      await parsers.parseCalendar([], window);
      const decoder = new TextDecoder();
      return await parseEach(fn, folder, paths, PARSER_LIMITS.maxCalendarBytes, parsers.size, {
        parse: async (bytes) => (await parsers.parseCalendar([decoder.decode(bytes)], window))[0],
        signal: context.signal,
      });
    },
  },
  fetch: {
    name: "account.fetch",
    reach: "acts",
    permission: "account.remote",
    // accountFetch checks the request's shape itself, in its own words.
    parse: (args) => args,
    maxAnswerBytes: (limits: HandlerLimits) =>
      maxNetFetchAnswerBytes(limits.maxFetchBytes, limits.maxFetchHeaderBytes),
    async run(request, context): Promise<NetResponse> {
      const grant = grantOf("account.fetch", context);
      if (grant.kind !== "remote") {
        throw new PermissionDeniedError(
          "account.fetch() needs a remote account; this device's account is a folder " +
            "(use account.list, account.read and the parse functions)",
        );
      }
      const { limits } = context;
      return await accountFetch(request, grant, {
        packageId: context.package.manifest.id,
        timeoutMs: Math.min(limits.fetchTimeoutMs, limits.timeoutMs),
        maxBytes: limits.maxFetchBytes,
        maxHeaderBytes: limits.maxFetchHeaderBytes,
        fetch: context.fetch,
        resolve: context.resolve,
        signal: context.signal,
      });
    },
  },
};

/**
 * The call's account.
 *
 * @throws {PermissionDeniedError} when the call carries none: it is no task step.
 */
function grantOf(fn: string, context: HostFunctionContext): AccountGrant {
  if (!context.account) {
    throw new PermissionDeniedError(
      `${fn}() needs the device's account: it works only in a device's task, and this call is ` +
        `not one; run the task instead (sync devices run ${context.package.manifest.id}, or ` +
        `Read now on its page under Devices)`,
    );
  }
  return context.account;
}

/** The folder of the call's account; refused for a remote account. */
function folderOf(fn: string, context: HostFunctionContext): string {
  const grant = grantOf(fn, context);
  if (grant.kind !== "folder") {
    throw new PermissionDeniedError(
      `${fn}() needs a folder account; this device's account is the remote ${grant.origin} ` +
        `(use account.fetch)`,
    );
  }
  return grant.folder;
}

function parsersOf(fn: string, context: HostFunctionContext): ParserPool {
  if (!context.parsers) {
    throw new SyncError(`${fn}() cannot run here: this host has no parsers`);
  }
  return context.parsers;
}

/**
 * Reads and parses the files of a parse call, in order of the answer, as
 * many at a time as the pool has workers: a file is read only once a worker
 * is about to take it, so the call holds a few files' bytes at once, not 32.
 * No file is taken once the handler call has ended, or once the answer is
 * past what a call carries back.
 *
 * @throws {AccountAccessError} when the folder is gone or a path leads outside it.
 * @throws {TransientError} when a file is busy or slow, or the call ended.
 * @throws {PayloadTooLargeError} when the answers come to more than `maxParseAnswerChars`.
 */
async function parseEach<T>(
  fn: string,
  folder: string,
  paths: unknown,
  maxBytes: number,
  lanes: number,
  { parse, signal }: {
    parse: (bytes: Uint8Array) => Promise<ParseResult<T>>;
    signal?: AbortSignal;
  },
): Promise<Parsed<T>[]> {
  const checked = parsePaths(fn, paths);
  await checkAccountFolder(fn, folder);
  const out: Parsed<T>[] = new Array(checked.length);
  const max = ACCOUNT_LIMITS.maxParseAnswerChars;
  let chars = 0;
  let next = 0;
  let failed = false;
  const lane = async () => {
    while (!failed && next < checked.length) {
      const at = next++;
      try {
        if (signal?.aborted) {
          throw new TransientError(`${fn}() stopped: the handler call it was made for ended`);
        }
        out[at] = await answer(await readForParse(fn, folder, checked[at], maxBytes), parse);
        chars += JSON.stringify(out[at]).length + 1;
        if (chars > max) {
          throw new PayloadTooLargeError(
            `${fn}() answers more than ${max} characters for these ${checked.length} paths; ` +
              `ask for fewer paths a call`,
          );
        }
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(lanes, checked.length)) }, lane));
  return out;
}

/** One file's answer: what was parsed, or why it was not read. */
async function answer<T>(
  file: FileForParse,
  parse: (bytes: Uint8Array) => Promise<ParseResult<T>>,
): Promise<Parsed<T>> {
  const base = { path: file.path, size: file.size, mtime: file.mtime };
  if (!("bytes" in file)) return { ...base, ok: false, reason: file.reason };
  return { ...base, ...await parse(file.bytes) };
}
