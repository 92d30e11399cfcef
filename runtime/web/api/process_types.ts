/**
 * The messages of `GET /api/processes` (a WebSocket, one per screen
 * instance): what the app's page sends to start and talk to the programs a
 * package declares under `host.processes`, and what the server sends back.
 * Every message is one JSON text frame. The page imports these types only
 * (the bundler erases them).
 *
 * @module
 */

/** Starts a declared program: answered by {@linkcode SpawnedMessage} or {@linkcode ProcessErrorMessage}. */
export interface SpawnRequest {
  /** The kind of request. */
  type: "spawn";
  /** The request's id, repeated in the answer: a number or a string the page chooses. */
  id: number | string;
  /** The program's id under the manifest's `host.processes`, such as `lsp`. */
  process: string;
  /** Arguments appended to the ones the manifest declares. */
  args?: string[];
  /** The folder it starts in: `~/` is the person's home; made when missing. */
  cwd?: string;
  /**
   * Variables to set (a string) or remove (`null`); `SYNC_*`, `PATH`, `LD_*`, `DYLD_*` and
   * `GCONV_PATH` are refused.
   */
  env?: Record<string, string | null>;
}

/** Writes text to a program's stdin: answered by {@linkcode DoneMessage}. */
export interface WriteRequest {
  /** The kind of request. */
  type: "write";
  /** The request's id. */
  id: number | string;
  /** The program's pid, as {@linkcode SpawnedMessage} gave it. */
  pid: number;
  /** What to write, as UTF-8. */
  text: string;
}

/** Closes a program's stdin: answered by {@linkcode DoneMessage}. */
export interface EndRequest {
  /** The kind of request. */
  type: "end";
  /** The request's id. */
  id: number | string;
  /** The program's pid. */
  pid: number;
}

/**
 * Stops a program and its process group (SIGTERM, then SIGKILL after 3 s):
 * answered by {@linkcode DoneMessage} at once, and by
 * {@linkcode ExitedMessage} once it has gone.
 */
export interface KillRequest {
  /** The kind of request. */
  type: "kill";
  /** The request's id. */
  id: number | string;
  /** The program's pid. */
  pid: number;
}

/** Every request the page sends. */
export type ProcessRequest = SpawnRequest | WriteRequest | EndRequest | KillRequest;

/** The answer to a {@linkcode SpawnRequest}: the program runs. */
export interface SpawnedMessage {
  /** The kind of answer. */
  type: "spawned";
  /** The request's id. */
  id: number | string;
  /** The program's pid, which is also its process group's id. */
  pid: number;
}

/** The answer to a write, an end or a kill that was done. */
export interface DoneMessage {
  /** The kind of answer. */
  type: "done";
  /** The request's id. */
  id: number | string;
}

/** The answer to a request that was refused or failed, or to a message that was not one. */
export interface ProcessErrorMessage {
  /** The kind of answer. */
  type: "error";
  /** The request's id; null when the message had none that could be read. */
  id: number | string | null;
  /** The error's name, such as `InvalidInputError` or `ApprovalRequiredError`. */
  name: string;
  /** What went wrong, why, and what to do next. */
  message: string;
}

/** A piece of a program's stdout, as text; a character split across reads arrives whole. */
export interface StdoutMessage {
  /** The kind of message. */
  type: "stdout";
  /** The program's pid. */
  pid: number;
  /** The text. */
  text: string;
}

/** A piece of a program's stderr, as text; a character split across reads arrives whole. */
export interface StderrMessage {
  /** The kind of message. */
  type: "stderr";
  /** The program's pid. */
  pid: number;
  /** The text. */
  text: string;
}

/**
 * A program has exited and nothing of its process group is left; the last
 * message about its pid, after all its output.
 */
export interface ExitedMessage {
  /** The kind of message. */
  type: "exited";
  /** The program's pid. */
  pid: number;
  /** Its exit code; 128 + the signal's number when a signal ended it. */
  code: number;
  /** The signal that ended it, such as `SIGTERM`, or null when it exited by itself. */
  signal: string | null;
}

/** Every message the server sends. */
export type ProcessMessage =
  | SpawnedMessage
  | DoneMessage
  | ProcessErrorMessage
  | StdoutMessage
  | StderrMessage
  | ExitedMessage;
