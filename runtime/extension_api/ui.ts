/**
 * `@sync/extension-api/ui`: the surface a package's screen gets. A screen is
 * the module built from `src/index.tsx` into the file the manifest's `ui`
 * names (`ui/index.js`); it exports `activate(ctx)`, the counterpart of a
 * service module's `register()`, and `ctx` is everything it may reach.
 *
 * ```ts
 * import type { ScreenContext } from "@sync/extension-api/ui";
 *
 * export async function activate(ctx: ScreenContext): Promise<void> {
 *   const { records } = await ctx.memory.list({ kind: "issues.issue" });
 *   const list = document.createElement("ul");
 *   for (const record of records) {
 *     const item = document.createElement("li");
 *     item.textContent = record.title;
 *     list.append(item);
 *   }
 *   document.body.append(list);
 * }
 * ```
 *
 * The screen runs in a sandboxed frame of its own, with an origin of its
 * own: it cannot read the app's cookie or token, call the app's API, open
 * windows or move the app's page. Its Content-Security-Policy allows scripts
 * and style sheets from Sync only and no connection at all, so `fetch`,
 * `XMLHttpRequest` and `WebSocket` fail; everything it reaches goes through
 * `ctx`, which crosses to the app over a message channel. A screen may use
 * the DOM freely inside its own frame: it draws into `document.body`.
 *
 * Import this module for its types only (`import type`): the build erases
 * it, and there is nothing in it to call.
 *
 * Rules that hold for every function on `ctx`:
 * - Everything returns a promise; each call crosses to the app and the host.
 * - Arguments and answers cross as plain JSON.
 * - A refusal rejects with an `Error` whose `name` says why
 *   (`PermissionDeniedError`, `MemoryAccessError`, `NotFoundError`,
 *   `InvalidInputError`, `ApprovalRequiredError`, …) and whose `message`
 *   says what to do.
 *
 * @module
 */
import type {
  JsonValue,
  NetRequest,
  NetResponse,
  RecordPage,
  RecordQuery,
  RecordSummary,
} from "./service.ts";

export type { JsonValue, NetRequest, NetResponse, RecordPage, RecordQuery, RecordSummary };

/**
 * The version of the extension API, [semver](https://semver.org), the same
 * as `@sync/extension-api/service`'s: the screen's surface and the handler's
 * are versioned together.
 */
export const API_VERSION = "2.1.0";

/** The package's own handlers, called as a person's action through the screen. */
export interface ScreenHandlersApi {
  /**
   * Calls one of the package's own handlers with the occasion `extension`,
   * through the host: the same limits, claims and receipts as any call. The
   * receipt names a person as the source.
   *
   * @param name A handler the manifest declares, such as `issues.poll`.
   * @param payload Any JSON value; `null` when absent.
   * @returns The handler's answer (`null` when it returned nothing).
   * @throws `NotFoundError` when the package declares no such handler.
   * @throws The handler's own failure (`HandlerFailedError`, `HandlerTimeoutError`, …).
   */
  call(name: string, payload?: JsonValue): Promise<JsonValue>;
}

/** Project memory, read as the package's handlers read it. A screen writes through its handlers. */
export interface ScreenMemoryApi {
  /**
   * Lists records in key order, without their content, as `memory.list`
   * answers a handler: the package's own kinds and the kinds installed
   * packages publish.
   *
   * @param query A `kind` or key `prefix`, a `limit`, and the `cursor` of the page before.
   * @throws `MemoryAccessError` when `query.kind` may not be read.
   */
  list(query?: RecordQuery): Promise<RecordPage>;
  /**
   * One record without its content, or `null` when there is none.
   *
   * @param key `kind/name`, such as `issues.issue/142`.
   * @throws `MemoryAccessError` when the kind may not be read.
   */
  record(key: string): Promise<RecordSummary | null>;
  /**
   * A record's text content, or `null` when there is no such record.
   *
   * @param key `kind/name`, such as `issues.issue/142`.
   * @throws `MemoryAccessError` when the kind may not be read.
   */
  content(key: string): Promise<string | null>;
}

/** The network, through the host, to the hosts the manifest declares (`net:<host>`). */
export interface ScreenNetApi {
  /**
   * Performs a request from the host, with the same rules, timeout and size
   * cap as a handler's `net.fetch`; redirects are not followed.
   *
   * @param request `{ url, method?, headers?, body? }`, or a URL string for a GET.
   * @throws `PermissionDeniedError` when the URL's host is not declared.
   */
  fetch(request: NetRequest | string): Promise<NetResponse>;
}

/** What `host.spawn` takes besides the process's id. */
export interface SpawnOptions {
  /** Appended to the arguments the manifest declares. */
  args?: string[];
  /** The working folder; `~/` expands to the person's home, and a missing folder is created. */
  cwd?: string;
  /** Variables to set; a `null` value removes that variable. `SYNC_*` are always removed. */
  env?: { [name: string]: string | null };
  /**
   * Called with the process's standard output as UTF-8 text, as it comes; a
   * character split across reads arrives whole. A throw is logged and lost:
   * later output and `exited` still arrive.
   */
  onStdout?: (text: string) => void;
  /** Called with the process's standard error as UTF-8 text, as it comes, like `onStdout`. */
  onStderr?: (text: string) => void;
}

/** How a process ended. */
export interface ProcessExit {
  /**
   * The exit code (128 + the signal's number when a signal ended it);
   * `null` when the channel to Sync closed before the exit was heard, in
   * which case Sync stopped the process.
   */
  code: number | null;
  /** The signal that ended it, such as `SIGTERM`; `null` when it exited. */
  signal: string | null;
}

/** A process the screen started. Only this screen may write to it or kill it. */
export interface ScreenProcess {
  /** Its process id on this machine. */
  pid: number;
  /** Writes text to its standard input, which stays open until `end()`. */
  write(text: string): Promise<void>;
  /** Closes its standard input: the program reads the end of its input. */
  end(): Promise<void>;
  /** Sends SIGTERM to its process group, then SIGKILL after 3 s. */
  kill(): Promise<void>;
  /** Settles when it has ended. */
  exited: Promise<ProcessExit>;
}

/** Long-lived programs the manifest declares under `host.processes`. */
export interface ScreenHostApi {
  /**
   * Starts a declared program in its own process group. It stops when the
   * screen reloads or closes, when the package is removed or updated, and
   * when Sync exits.
   *
   * @param id One of the manifest's `host.processes` ids.
   * @param options Extra arguments, working folder, environment, and output callbacks.
   * @throws `NotFoundError` when the manifest declares no program `id`.
   * @throws `PermissionDeniedError` when the manifest asks for no
   *   `host.processes`, or `InvalidInputError` for a bad `cwd` or `env`.
   */
  spawn(id: string, options?: SpawnOptions): Promise<ScreenProcess>;
}

/** Who the screen is, and where. */
export interface ScreenIdentity {
  /** The package id. */
  id: string;
  /** The package's name, as people see it. */
  name: string;
  /** The project folder the screen is shown for. */
  project: string;
}

/**
 * Everything a screen reaches: handed to `activate(ctx)`.
 *
 * The frame's document carries Sync's style sheet: the app's colours,
 * spaces and radii as CSS variables (`--bg`, `--text-1`, `--accent`,
 * `--space-2`, `--radius`, …, light and dark by `prefers-color-scheme`) and a
 * few classes (`button`, `button primary`, `input`, `field`, `error`,
 * `notice`, `primary`, `secondary`, `tertiary`, `mono`, `screen-list`), so a
 * screen looks like the rest of the window.
 */
export interface ScreenContext {
  /** The version of this surface, the same as `API_VERSION`. */
  apiVersion: string;
  /** The package and the project. */
  screen: ScreenIdentity;
  /** The package's own handlers. */
  handlers: ScreenHandlersApi;
  /** The project's memory, as the package may read it. */
  memory: ScreenMemoryApi;
  /** The declared hosts, through Sync. */
  net: ScreenNetApi;
  /** The declared long-lived programs. */
  host: ScreenHostApi;
}

/** What a screen module exports. */
export interface ScreenModule {
  /** Draws the screen; a rejection is shown in the screen's place, as text. */
  activate(ctx: ScreenContext): void | Promise<void>;
}
