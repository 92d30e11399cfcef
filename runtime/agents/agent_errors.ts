/**
 * The errors of an agent session. They are domain errors (`SyncError`s),
 * declared with the others in `runtime/errors.ts` so that
 * `runtime/error_status.ts` maps them: a work order that fails records the
 * message, and Chat shows it with the stderr tail kept beside it.
 *
 * @module
 */
export { AgentFailedError, AgentSignInRequiredError } from "../errors.ts";
export type { AgentAuthEnvVar, AgentAuthMethod, AgentFailure } from "../errors.ts";
