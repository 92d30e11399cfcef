/**
 * How the task runner reads a step's failure: by the error's name, the one
 * the handler (or the host function it called) threw when it crossed, else
 * the host's own. Private to the applets' folder.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import type { NoticeKind } from "./device_record.ts";

/** What a failure means for the attempt, and for the device's lamp. */
export interface Failure {
  /** The attempt's outcome. */
  outcome: "failed" | "transient" | "unknown" | "fenced" | "cancelled";
  /** The notice a person must act on; null when the runner handles it itself. */
  notice: NoticeKind | null;
  /** The error's name. */
  name: string;
  /** What happened, in words. */
  message: string;
}

/** Names of failures that pass: the runner retries them within bounds. */
const TRANSIENT = new Set([
  "TransientError",
  "HandlerTimeoutError",
  "NetworkError",
  "HandlerBusyError",
  "RateLimitedError",
]);

/**
 * The name a failure goes by: the name the handler's own error had
 * (`thrown`, kept by the isolate when the handler threw an Error), else the
 * error's own.
 *
 * @param error Anything thrown by a step.
 */
export function failureName(error: unknown): string {
  const thrown = (error as { thrown?: unknown } | null)?.thrown;
  if (typeof thrown === "string" && thrown !== "") return thrown;
  return error instanceof Error ? error.name : "Error";
}

/**
 * What a step's failure means.
 *
 * @param error Anything thrown by a step.
 */
export function classifyFailure(error: unknown): Failure {
  const name = failureName(error);
  const { message } = describeError(error);
  if (TRANSIENT.has(name)) return { outcome: "transient", notice: null, name, message };
  if (name === "UnknownOutcomeError") {
    return { outcome: "unknown", notice: "review-run", name, message };
  }
  if (name === "AccountAccessError") {
    return { outcome: "failed", notice: "allow-access", name, message };
  }
  if (name === "SignInError") return { outcome: "failed", notice: "sign-in", name, message };
  if (name === "FencedError" || name === "SupersededError") {
    return { outcome: "fenced", notice: null, name, message };
  }
  if (name === "CancelledError") return { outcome: "cancelled", notice: null, name, message };
  return { outcome: "failed", notice: "review-run", name, message };
}
