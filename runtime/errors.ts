/**
 * Domain errors. Every error the host raises on purpose is one of these
 * classes; `runtime/error_status.ts` is the one place that maps them to HTTP
 * statuses and CLI exit codes. Messages say what was refused and why.
 *
 * @module
 */

import type { SignInWay } from "./agent_session.ts";

/** Base class, so callers can tell a refusal from a bug. */
export class SyncError extends Error {
  /** `"SyncError"`: the name receipts, reports and the API show with the message. */
  override name = "SyncError";
}

/** One problem found in a manifest: the field path and what was expected. */
export interface ManifestIssue {
  /** Dotted field path such as `schedule[0].every`; empty for the whole document. */
  path: string;
  /** What was wrong and what was expected. */
  message: string;
}

/** A manifest that cannot be used. `issues` lists every problem found. */
export class ManifestError extends SyncError {
  /** `"ManifestError"`: the name receipts, reports and the API show with the message. */
  override name = "ManifestError";
  /** Every problem found, each with its field path. */
  readonly issues: ManifestIssue[];
  /**
   * The message names where the manifest came from and lists each issue on its own line.
   *
   * @param where Where the manifest came from: a path or a package id.
   * @param issues Every problem found.
   */
  constructor(where: string, issues: ManifestIssue[]) {
    super(
      `Invalid manifest ${where}:\n` +
        issues.map((i) => `  ${i.path || "(manifest)"}: ${i.message}`).join("\n"),
    );
    this.issues = issues;
  }
}

/** An archive that was refused: escaping paths, links, devices, too big. */
export class ArchiveError extends SyncError {
  /** `"ArchiveError"`: the name receipts, reports and the API show with the message. */
  override name = "ArchiveError";
}

/** Bad input from a person or a tool (CLI flags, JSON payloads, paths). */
export class InvalidInputError extends SyncError {
  /** `"InvalidInputError"`: the name receipts, reports and the API show with the message. */
  override name = "InvalidInputError";
}

/** Something named does not exist: a package, a project, a record. */
export class NotFoundError extends SyncError {
  /** `"NotFoundError"`: the name receipts, reports and the API show with the message. */
  override name = "NotFoundError";
}

/** Installing or serving a package needs a person's approval first. */
export class ApprovalRequiredError extends SyncError {
  /** `"ApprovalRequiredError"`: the name receipts, reports and the API show with the message. */
  override name = "ApprovalRequiredError";
}

/** A capability was refused because its permission is not declared. */
export class PermissionDeniedError extends SyncError {
  /** `"PermissionDeniedError"`: the name receipts, reports and the API show with the message. */
  override name = "PermissionDeniedError";
}

/** A package touched memory it may not: another's unpublished kind, or a write outside its prefix. */
export class MemoryAccessError extends SyncError {
  /** `"MemoryAccessError"`: the name receipts, reports and the API show with the message. */
  override name = "MemoryAccessError";
}

/**
 * A project's memory file is there but cannot be read as a database. Nothing
 * in the project runs until a person moves it aside; the file is kept as it
 * is, since what it held may still be recovered from it.
 */
export class MemoryUnreadableError extends SyncError {
  /** `"MemoryUnreadableError"`: the name receipts, reports and the API show with the message. */
  override name = "MemoryUnreadableError";
}

/**
 * What went wrong with the disk under a file Sync keeps: it is full, it may
 * not be written, a folder stands where the file belongs, or the file system
 * holding it cannot be reached (gone, unmounted, failing).
 */
export type StorageProblem = "full" | "read-only" | "not-a-file" | "unreachable";

/**
 * A file Sync keeps (a project's memory, the installation's database) could
 * not be opened or written because of the disk under it, not because of
 * what was asked. Nothing of the refused write was kept: each is one atomic
 * commit. The message names the file and what a person can do.
 */
export class StorageError extends SyncError {
  /** `"StorageError"`: the name receipts, reports and the API show with the message. */
  override name = "StorageError";
  /** What is wrong with the disk; it decides the HTTP status. */
  readonly problem: StorageProblem;
  /** The file that could not be opened or written. */
  readonly path: string;
  /**
   * Keeps the problem and the file beside the message.
   *
   * @param message What happened, and what to do.
   * @param failure What is wrong, and with which file.
   */
  constructor(message: string, failure: { problem: StorageProblem; path: string }) {
    super(message);
    this.problem = failure.problem;
    this.path = failure.path;
  }
}

/** A value was larger than the host accepts. */
export class PayloadTooLargeError extends SyncError {
  /** `"PayloadTooLargeError"`: the name receipts, reports and the API show with the message. */
  override name = "PayloadTooLargeError";
}

/**
 * A request `net.fetch` made got no answer: the host could not be reached, the
 * connection failed, or it did not answer in time. The request was valid.
 */
export class NetworkError extends SyncError {
  /** `"NetworkError"`: the name receipts, reports and the API show with the message. */
  override name = "NetworkError";
}

/** A value could not cross as JSON (functions, cycles, BigInt, undefined). */
export class InvalidValueError extends SyncError {
  /** `"InvalidValueError"`: the name receipts, reports and the API show with the message. */
  override name = "InvalidValueError";
}

/** The handler ran past its wall-clock limit. */
export class HandlerTimeoutError extends SyncError {
  /** `"HandlerTimeoutError"`: the name receipts, reports and the API show with the message. */
  override name = "HandlerTimeoutError";
}

/** The handler exceeded the memory or stack cap. */
export class HandlerResourceError extends SyncError {
  /** `"HandlerResourceError"`: the name receipts, reports and the API show with the message. */
  override name = "HandlerResourceError";
}

/** The handler threw, or its module failed to load. */
export class HandlerFailedError extends SyncError {
  /** `"HandlerFailedError"`: the name receipts, reports and the API show with the message. */
  override name = "HandlerFailedError";
  /**
   * The name of the Error the handler threw (`TransientError`, `TypeError`),
   * when it threw one; a task runner decides on a retry by it.
   */
  thrown?: string;
}

/** The same handler is already running in this project. */
export class HandlerBusyError extends SyncError {
  /** `"HandlerBusyError"`: the name receipts, reports and the API show with the message. */
  override name = "HandlerBusyError";
}

/** The handler was called more often than the rate limit allows. */
export class RateLimitedError extends SyncError {
  /** `"RateLimitedError"`: the name receipts, reports and the API show with the message. */
  override name = "RateLimitedError";
}

/**
 * The caller called the call off while it ran (an MCP client's
 * `notifications/cancelled`); nothing of it was committed.
 */
export class CancelledError extends SyncError {
  /** `"CancelledError"`: the name receipts, reports and the API show with the message. */
  override name = "CancelledError";
}

/** The package's generation moved on while the call ran; nothing was committed. */
export class SupersededError extends SyncError {
  /** `"SupersededError"`: the name receipts, reports and the API show with the message. */
  override name = "SupersededError";
}

/**
 * The device's account changed (connected anew, disconnected, or the device
 * reset) while a task step ran under the old one; nothing of it was committed.
 */
export class FencedError extends SyncError {
  /** `"FencedError"`: the name receipts, reports and the API show with the message. */
  override name = "FencedError";
}

/** Another writer changed the same entry first. */
export class ConflictError extends SyncError {
  /** `"ConflictError"`: the name receipts, reports and the API show with the message. */
  override name = "ConflictError";
}

/**
 * A lifecycle handler (`installed`, `removed`) failed, so what it guards was
 * refused: the install left nothing installed, the removal removed nothing.
 */
export class LifecycleFailedError extends SyncError {
  /** `"LifecycleFailedError"`: the name receipts, reports and the API show with the message. */
  override name = "LifecycleFailedError";
}

/**
 * A file the installation relies on can be read or changed by other users of
 * the machine (the token file, say), so Sync will not use it until it is
 * made private again.
 */
export class UnsafeFileError extends SyncError {
  /** `"UnsafeFileError"`: the name receipts, reports and the API show with the message. */
  override name = "UnsafeFileError";
}

/**
 * The `sync serve` that owns the installation stopped before it finished a
 * command sent to it: what the command did is unknown, and is to be read from
 * the installation (`sync receipts`, `sync list`).
 */
export class OwnerGoneError extends SyncError {
  /** `"OwnerGoneError"`: the name receipts, reports and the API show with the message. */
  override name = "OwnerGoneError";
}

/**
 * A process could not be started: its program is not on PATH or cannot be
 * run, its folder cannot be made, or Sync lacks a permission it needs.
 */
export class ProcessStartError extends SyncError {
  /** `"ProcessStartError"`: the name receipts, reports and the API show with the message. */
  override name = "ProcessStartError";
}

/** A process was not started because too many are running (for its owner, or in all). */
export class ProcessLimitError extends SyncError {
  /** `"ProcessLimitError"`: the name receipts, reports and the API show with the message. */
  override name = "ProcessLimitError";
}

/** Where a build problem is, relative to the package folder. */
export interface BuildErrorPlace {
  /** Such as `src/service.ts` or `manifest.json`. */
  file: string;
  /** Line, from 1, when known. */
  line?: number;
  /** Column, from 1, when known. */
  column?: number;
}

/** A package's sources could not be built; `file`, `line` and `column` say where. */
export class BuildError extends SyncError {
  /** `"BuildError"`: the name receipts, reports and the API show with the message. */
  override name = "BuildError";
  /** The file the problem is in, relative to the package folder, such as `src/service.ts`. */
  readonly file: string;
  /** Line, from 1, when known. */
  readonly line?: number;
  /** Column, from 1, when known. */
  readonly column?: number;
  /**
   * Keeps the place beside the message, so check can show it at the author's line.
   *
   * @param message What went wrong, for the author.
   * @param place Where, relative to the package folder.
   */
  constructor(message: string, place: BuildErrorPlace) {
    super(message);
    this.file = place.file;
    this.line = place.line;
    this.column = place.column;
  }
}

/** A package breaks a rule of `deno task check`; `problems` lists each, with its place. */
export class PackageCheckError extends SyncError {
  /** `"PackageCheckError"`: the name receipts, reports and the API show with the message. */
  override name = "PackageCheckError";
  /**
   * Each problem: the rule it breaks (such as `free-global`), the file relative
   * to the package folder, the line from 1 when it has one, and what is wrong.
   */
  readonly problems: readonly { rule: string; file: string; line?: number; message: string }[];
  /**
   * Keeps the problems beside the message, so a caller can list them one by one.
   *
   * @param message The whole refusal, every problem as check prints it.
   * @param problems Each problem found.
   */
  constructor(
    message: string,
    problems: readonly { rule: string; file: string; line?: number; message: string }[],
  ) {
    super(message);
    this.problems = problems;
  }
}

/** What {@linkcode AgentFailedError} keeps beside its message. */
export interface AgentFailure {
  /** The last of the agent's stderr; empty when it wrote none. */
  stderrTail?: string;
  /** How the process ended, when it has: its exit code, and the signal that ended it. */
  exit?: { code: number; signal?: string | null } | null;
  /** The JSON-RPC error code, when the agent answered a request with an error. */
  code?: number;
}

/**
 * The agent could not do what it was asked: it did not answer `initialize`
 * in time, exited or closed its output, or answered a request with an error
 * (its own words are in the message). The message ends with the stderr tail
 * when there is one.
 */
export class AgentFailedError extends SyncError {
  /** `"AgentFailedError"`: the name receipts, reports and the API show with the message. */
  override name = "AgentFailedError";
  /** The last of the agent's stderr; empty when it wrote none. */
  readonly stderrTail: string;
  /** How the process ended, or null while it runs. */
  readonly exit: { code: number; signal?: string | null } | null;
  /** The JSON-RPC error code, when the agent answered with an error. */
  readonly code?: number;
  /**
   * Keeps the stderr tail, the exit and the error code beside the message.
   *
   * @param message What failed and why.
   * @param failure The stderr tail, the exit and the error code.
   */
  constructor(message: string, failure: AgentFailure = {}) {
    super(message);
    this.stderrTail = failure.stderrTail ?? "";
    this.exit = failure.exit ?? null;
    if (failure.code !== undefined) this.code = failure.code;
  }
}

/** A way to sign in that an agent lists (`authMethods`). */
export interface AgentAuthMethod {
  /** The agent's id of the method. */
  id: string;
  /** Its name, in the agent's words. */
  name: string;
  /** What it does, in the agent's words, when the agent says. */
  description?: string;
  /**
   * For a method done in a terminal: the arguments to run the agent's own
   * command with, and extra environment, to sign in.
   */
  terminal?: { args: string[]; env: Record<string, string> };
  /**
   * For a method that reads environment variables (ACP's `env_var` methods,
   * and an agent's own method whose description names the variable it
   * needs, such as `GEMINI_API_KEY`): the variables, which the agent's
   * definition can give it.
   */
  envVars?: AgentAuthEnvVar[];
  /** Where to get the credential, when the agent says. */
  link?: string;
}

/** An environment variable a sign-in method reads. */
export interface AgentAuthEnvVar {
  /** Its name, such as `OPENAI_API_KEY`. */
  name: string;
  /** What it is, in the agent's words, when the agent says. */
  label?: string;
  /** True when the method works without it. */
  optional?: boolean;
}

/**
 * The agent will not start a session until a person signs in. The work waits
 * (its state is `waiting`), and Chat says what to run: the message names each
 * way the agent lists.
 */
export class AgentSignInRequiredError extends SyncError {
  /** `"AgentSignInRequiredError"`: the name receipts, reports and the API show with the message. */
  override name = "AgentSignInRequiredError";
  /** The ways to sign in the agent listed, possibly none. */
  readonly authMethods: AgentAuthMethod[];
  /** What a person does for each way, as a waiting session's state shows it. */
  readonly ways: SignInWay[];
  /**
   * Keeps the ways to sign in beside the message, so Chat can show them.
   *
   * @param message What to run, and why.
   * @param authMethods The ways to sign in the agent listed.
   * @param ways What a person does for each, when known.
   */
  constructor(message: string, authMethods: AgentAuthMethod[], ways: SignInWay[] = []) {
    super(message);
    this.authMethods = authMethods;
    this.ways = ways;
  }
}

/**
 * What a device's task met will likely pass by itself: a busy or locked
 * file, a read past its time, a remote that did not answer or answered 5xx
 * or 429. The task's run is tried again later; the device's lamp stays as it
 * was. A handler may throw an error of this name to ask for a retry.
 */
export class TransientError extends SyncError {
  /** `"TransientError"`: the name receipts, reports and the API show with the message. */
  override name = "TransientError";
}

/**
 * A device's account folder cannot be reached as it should: it is gone or
 * unreadable, or a path leads outside it. A person must allow access again
 * (connect the folder anew, or fix its permissions).
 */
export class AccountAccessError extends SyncError {
  /** `"AccountAccessError"`: the name receipts, reports and the API show with the message. */
  override name = "AccountAccessError";
}

/**
 * A device's remote account refused its credential (401 or 403): a person
 * must sign in again.
 */
export class SignInError extends SyncError {
  /** `"SignInError"`: the name receipts, reports and the API show with the message. */
  override name = "SignInError";
}

/**
 * A request that changes something on a device's remote account (any
 * method but GET and HEAD) got no answer: whether it was done is unknown.
 * It is never sent again by itself; a person reviews the run.
 */
export class UnknownOutcomeError extends SyncError {
  /** `"UnknownOutcomeError"`: the name receipts, reports and the API show with the message. */
  override name = "UnknownOutcomeError";
}

/**
 * A model's endpoint could not answer now: it is not running or not
 * reachable, it did not answer in time, it dropped the connection, or it
 * answered 429 or 5xx. It is tried again later; `retryAfterMs` is what the
 * endpoint asked to wait, when it said.
 */
export class ModelUnavailableError extends SyncError {
  /** `"ModelUnavailableError"`: the name receipts, reports and the API show with the message. */
  override name = "ModelUnavailableError";
  /** How long the endpoint asked to wait before the next request (429's `Retry-After`), in ms. */
  readonly retryAfterMs: number | null;

  /**
   * Says the endpoint cannot answer now.
   *
   * @param message What happened and what to do.
   * @param retryAfterMs How long the endpoint asked to wait, in ms; null when it did not say.
   */
  constructor(message: string, retryAfterMs: number | null = null) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A model's endpoint refused the request as it stands (401, 403, 404, 400):
 * its key, its model's name or its address must be changed by a person;
 * trying again as it is would be refused again.
 */
export class ModelRefusedError extends SyncError {
  /** `"ModelRefusedError"`: the name receipts, reports and the API show with the message. */
  override name = "ModelRefusedError";
}

/**
 * A model answered, but not with what was asked: no JSON, JSON that does not
 * parse, an answer cut off at its length, or more than an answer may hold.
 * `content` keeps what it said (cut), for one repair.
 */
export class ModelAnswerError extends SyncError {
  /** `"ModelAnswerError"`: the name receipts, reports and the API show with the message. */
  override name = "ModelAnswerError";
  /** What the model said, at most 4,000 characters; "" when it said nothing. */
  readonly content: string;

  /**
   * Says what was wrong with the answer, keeping what the model said.
   *
   * @param message What was wrong with the answer.
   * @param content What the model said.
   */
  constructor(message: string, content = "") {
    super(message);
    this.content = content.slice(0, 4000);
  }
}
