/**
 * The one place that maps domain errors to HTTP statuses and CLI exit codes.
 *
 * @module
 */
import {
  AccountAccessError,
  AgentFailedError,
  AgentSignInRequiredError,
  ApprovalRequiredError,
  ArchiveError,
  CancelledError,
  ConflictError,
  FencedError,
  HandlerBusyError,
  HandlerFailedError,
  HandlerResourceError,
  HandlerTimeoutError,
  InvalidInputError,
  InvalidValueError,
  LifecycleFailedError,
  ManifestError,
  MemoryAccessError,
  MemoryUnreadableError,
  ModelAnswerError,
  ModelRefusedError,
  ModelUnavailableError,
  NetworkError,
  NotFoundError,
  OwnerGoneError,
  PackageCheckError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ProcessLimitError,
  ProcessStartError,
  RateLimitedError,
  SignInError,
  StorageError,
  SupersededError,
  TransientError,
  UnknownOutcomeError,
} from "./errors.ts";

/**
 * The HTTP status the web app answers for an error; 500 for anything that is not a domain error.
 *
 * @param error Anything thrown.
 * @returns Such as 404 for {@linkcode NotFoundError}, 409 for {@linkcode ConflictError},
 *   422 when a handler failed, 507 when the disk is full ({@linkcode StorageError}).
 */
export function httpStatusOf(error: unknown): number {
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ApprovalRequiredError) return 403;
  if (error instanceof PermissionDeniedError || error instanceof MemoryAccessError) return 403;
  if (error instanceof PayloadTooLargeError) return 413;
  if (error instanceof RateLimitedError || error instanceof ProcessLimitError) return 429;
  if (error instanceof HandlerBusyError) return 409;
  if (error instanceof OwnerGoneError) return 503;
  if (error instanceof ConflictError || error instanceof SupersededError) return 409;
  // The device's account changed under a task step: fenced off like a superseded call.
  if (error instanceof FencedError) return 409;
  // The caller itself called the call off; what it was doing is as it was before.
  if (error instanceof CancelledError) return 409;
  // The agent waits for a person to sign in to it, outside Sync.
  if (error instanceof AgentSignInRequiredError) return 409;
  // The agent's program failed or is missing: not the request's fault, nor Sync's.
  if (error instanceof AgentFailedError) return 502;
  // A host a handler fetched from did not answer: neither the request's fault nor Sync's.
  if (error instanceof NetworkError) return 502;
  // A device's account: what will pass by itself is unavailable for now; what
  // a person must act on (allow access, sign in) is the state of the device.
  if (error instanceof TransientError || error instanceof ModelUnavailableError) return 503;
  if (error instanceof ModelRefusedError || error instanceof ModelAnswerError) return 502;
  if (error instanceof AccountAccessError || error instanceof SignInError) return 409;
  // The remote never answered a change: what became of it is the remote's to say.
  if (error instanceof UnknownOutcomeError) return 502;
  // The project's state, not the request, is what a person must fix (by moving a file aside).
  if (error instanceof MemoryUnreadableError) return 409;
  // The disk, not the request: 507 when it is full; the folder's state a
  // person must change (read-only, a folder where the file belongs) as 409,
  // like an unreadable memory; a file system that cannot be reached, 503.
  if (error instanceof StorageError) {
    if (error.problem === "full") return 507;
    return error.problem === "unreachable" ? 503 : 409;
  }
  if (
    error instanceof InvalidInputError || error instanceof InvalidValueError ||
    error instanceof ManifestError || error instanceof ArchiveError ||
    error instanceof PackageCheckError
  ) return 400;
  // Handler failures (timeouts, throws, limits) are the handler's, not the request's.
  if (
    error instanceof HandlerFailedError || error instanceof HandlerTimeoutError ||
    error instanceof HandlerResourceError || error instanceof LifecycleFailedError ||
    error instanceof ProcessStartError
  ) return 422;
  return 500;
}

/**
 * The CLI exit code for an error: 1 for a refusal or failure, 2 for bad usage.
 *
 * @param error Anything thrown.
 */
export function exitCodeOf(error: unknown): number {
  return error instanceof InvalidInputError ? 2 : 1;
}
