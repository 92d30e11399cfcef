/**
 * Domain errors. Every error the host raises on purpose is one of these
 * classes; `runtime/error_status.ts` is the one place that maps them to HTTP
 * statuses and CLI exit codes. Messages say what was refused and why.
 *
 * @module
 */

/** Base class, so callers can tell a refusal from a bug. */
export class SyncError extends Error {
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
  override name = "ManifestError";
  readonly issues: ManifestIssue[];
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
  override name = "ArchiveError";
}

/** Bad input from a person or a tool (CLI flags, JSON payloads, paths). */
export class InvalidInputError extends SyncError {
  override name = "InvalidInputError";
}

/** Something named does not exist: a package, a project, a record. */
export class NotFoundError extends SyncError {
  override name = "NotFoundError";
}

/** Installing or serving a package needs a person's approval first. */
export class ApprovalRequiredError extends SyncError {
  override name = "ApprovalRequiredError";
}

/** A capability was refused because its permission is not declared. */
export class PermissionDeniedError extends SyncError {
  override name = "PermissionDeniedError";
}

/** A package touched memory it may not: another's unpublished kind, or a write outside its prefix. */
export class MemoryAccessError extends SyncError {
  override name = "MemoryAccessError";
}

/** A value was larger than the host accepts. */
export class PayloadTooLargeError extends SyncError {
  override name = "PayloadTooLargeError";
}

/** A value could not cross as JSON (functions, cycles, BigInt, undefined). */
export class InvalidValueError extends SyncError {
  override name = "InvalidValueError";
}

/** The handler ran past its wall-clock limit. */
export class HandlerTimeoutError extends SyncError {
  override name = "HandlerTimeoutError";
}

/** The handler exceeded the memory or stack cap. */
export class HandlerResourceError extends SyncError {
  override name = "HandlerResourceError";
}

/** The handler threw, or its module failed to load. */
export class HandlerFailedError extends SyncError {
  override name = "HandlerFailedError";
}

/** The same handler is already running in this project. */
export class HandlerBusyError extends SyncError {
  override name = "HandlerBusyError";
}

/** The handler was called more often than the rate limit allows. */
export class RateLimitedError extends SyncError {
  override name = "RateLimitedError";
}

/** The package's generation moved on while the call ran; nothing was committed. */
export class SupersededError extends SyncError {
  override name = "SupersededError";
}

/** Another writer changed the same entry first. */
export class ConflictError extends SyncError {
  override name = "ConflictError";
}

/**
 * A lifecycle handler (`installed`, `removed`) failed, so what it guards was
 * refused: the install left nothing installed, the removal removed nothing.
 */
export class LifecycleFailedError extends SyncError {
  override name = "LifecycleFailedError";
}

/** Where a build problem is, relative to the package folder. */
export interface BuildErrorPlace {
  /** Such as `src/service.ts` or `manifest.json`. */
  file: string;
  line?: number;
  column?: number;
}

/** A package's sources could not be built; `file`, `line` and `column` say where. */
export class BuildError extends SyncError {
  override name = "BuildError";
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  constructor(message: string, place: BuildErrorPlace) {
    super(message);
    this.file = place.file;
    this.line = place.line;
    this.column = place.column;
  }
}

/** A package breaks a rule of `deno task check`; `problems` lists each, with its place. */
export class PackageCheckError extends SyncError {
  override name = "PackageCheckError";
  readonly problems: readonly { rule: string; file: string; line?: number; message: string }[];
  constructor(
    message: string,
    problems: readonly { rule: string; file: string; line?: number; message: string }[],
  ) {
    super(message);
    this.problems = problems;
  }
}
