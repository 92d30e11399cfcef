import assert from "node:assert/strict";
import { exitCodeOf, httpStatusOf } from "../runtime/error_status.ts";
import * as errors from "../runtime/errors.ts";

/** One of each error class, with the HTTP status and exit code it must map to. */
const EXPECTED: Record<string, { error: Error; status: number; exit: number }> = {
  SyncError: { error: new errors.SyncError("x"), status: 500, exit: 1 },
  ManifestError: {
    error: new errors.ManifestError("manifest.json", [{ path: "id", message: "is missing" }]),
    status: 400,
    exit: 1,
  },
  ArchiveError: { error: new errors.ArchiveError("x"), status: 400, exit: 1 },
  InvalidInputError: { error: new errors.InvalidInputError("x"), status: 400, exit: 2 },
  NotFoundError: { error: new errors.NotFoundError("x"), status: 404, exit: 1 },
  ApprovalRequiredError: { error: new errors.ApprovalRequiredError("x"), status: 403, exit: 1 },
  PermissionDeniedError: { error: new errors.PermissionDeniedError("x"), status: 403, exit: 1 },
  MemoryAccessError: { error: new errors.MemoryAccessError("x"), status: 403, exit: 1 },
  PayloadTooLargeError: { error: new errors.PayloadTooLargeError("x"), status: 413, exit: 1 },
  MemoryUnreadableError: { error: new errors.MemoryUnreadableError("x"), status: 409, exit: 1 },
  NetworkError: { error: new errors.NetworkError("x"), status: 502, exit: 1 },
  InvalidValueError: { error: new errors.InvalidValueError("x"), status: 400, exit: 1 },
  HandlerTimeoutError: { error: new errors.HandlerTimeoutError("x"), status: 422, exit: 1 },
  HandlerResourceError: { error: new errors.HandlerResourceError("x"), status: 422, exit: 1 },
  HandlerFailedError: { error: new errors.HandlerFailedError("x"), status: 422, exit: 1 },
  HandlerBusyError: { error: new errors.HandlerBusyError("x"), status: 409, exit: 1 },
  RateLimitedError: { error: new errors.RateLimitedError("x"), status: 429, exit: 1 },
  SupersededError: { error: new errors.SupersededError("x"), status: 409, exit: 1 },
  FencedError: { error: new errors.FencedError("x"), status: 409, exit: 1 },
  ConflictError: { error: new errors.ConflictError("x"), status: 409, exit: 1 },
  CancelledError: { error: new errors.CancelledError("x"), status: 409, exit: 1 },
  LifecycleFailedError: { error: new errors.LifecycleFailedError("x"), status: 422, exit: 1 },
  UnsafeFileError: { error: new errors.UnsafeFileError("x"), status: 500, exit: 1 },
  OwnerGoneError: { error: new errors.OwnerGoneError("x"), status: 503, exit: 1 },
  // The disk, not the request: full is 507; the other problems are told in storage_failure_test.
  StorageError: {
    error: new errors.StorageError("x", { problem: "full", path: "/p" }),
    status: 507,
    exit: 1,
  },
  // A program that cannot start is the agent's or extension's setup, not the request's.
  ProcessStartError: { error: new errors.ProcessStartError("x"), status: 422, exit: 1 },
  ProcessLimitError: { error: new errors.ProcessLimitError("x"), status: 429, exit: 1 },
  // Builds run only in the author's CLI; the web app never answers one.
  BuildError: {
    error: new errors.BuildError("x", { file: "src/service.ts", line: 1 }),
    status: 500,
    exit: 1,
  },
  PackageCheckError: { error: new errors.PackageCheckError("x", []), status: 400, exit: 1 },
  AgentFailedError: { error: new errors.AgentFailedError("x"), status: 502, exit: 1 },
  TransientError: { error: new errors.TransientError("x"), status: 503, exit: 1 },
  AccountAccessError: { error: new errors.AccountAccessError("x"), status: 409, exit: 1 },
  SignInError: { error: new errors.SignInError("x"), status: 409, exit: 1 },
  UnknownOutcomeError: { error: new errors.UnknownOutcomeError("x"), status: 502, exit: 1 },
  // A model that cannot answer now is asked again later; one that refuses, or answers wrong, is
  // the endpoint's (a bad gateway), not the request's.
  ModelUnavailableError: { error: new errors.ModelUnavailableError("x"), status: 503, exit: 1 },
  ModelRefusedError: { error: new errors.ModelRefusedError("x"), status: 502, exit: 1 },
  ModelAnswerError: { error: new errors.ModelAnswerError("x"), status: 502, exit: 1 },
  AgentSignInRequiredError: {
    error: new errors.AgentSignInRequiredError("x", []),
    status: 409,
    exit: 1,
  },
};

Deno.test("`httpStatusOf()` and `exitCodeOf()` map every domain error", async (t) => {
  await t.step("every error class the domain declares is in this table", () => {
    const classes = Object.entries(errors)
      .filter(([, value]) => typeof value === "function" && value.prototype instanceof Error)
      .map(([name]) => name)
      .sort();
    assert.deepEqual(classes, Object.keys(EXPECTED).sort());
  });

  await t.step("each class is named after itself and is a SyncError", () => {
    for (const [name, { error }] of Object.entries(EXPECTED)) {
      assert.equal(error.name, name);
      assert.ok(error instanceof errors.SyncError, name);
    }
  });

  for (const [name, { error, status, exit }] of Object.entries(EXPECTED)) {
    await t.step(`${name} is HTTP ${status} and exit ${exit}`, () => {
      assert.equal(httpStatusOf(error), status);
      assert.equal(exitCodeOf(error), exit);
    });
  }

  await t.step("what is not a domain error is 500 and exit 1", () => {
    for (const thrown of [new Error("x"), new TypeError("x"), "a string", undefined, null]) {
      assert.equal(httpStatusOf(thrown), 500);
      assert.equal(exitCodeOf(thrown), 1);
    }
  });
});
