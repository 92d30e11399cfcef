/**
 * The permissions an agent asks during a turn: each waits for a person's
 * answer, and the session stays `waiting` while any is open (`waitingFor`
 * names the oldest still open), `running` again once none is. Private to
 * the agents folder: the work performer's (`work_performer.ts`).
 *
 * @module
 */
import { InvalidInputError } from "../errors.ts";
import type { PermissionAnswer, PermissionRequest } from "./acp_session.ts";
import type { LiveSession } from "./_live_session.ts";
import type { SessionWrites } from "./_session_writes.ts";

/** What the permission requests of a session are given by the work performer. */
export interface PermissionRequestsOptions {
  /** Where the session's pointer changes go. */
  writes: SessionWrites;
  /** True once Sync is stopping: the state is then left to stopping. */
  stopping: () => boolean;
}

/**
 * A permission the agent asks: the session waits for a person's answer.
 *
 * @param live The session.
 * @param request What the agent asks, with its options.
 * @param signal Aborted when the agent withdraws the request: it is answered `cancelled`.
 * @param options Where changes go, and whether Sync is stopping.
 * @returns The person's answer, or `cancelled`.
 */
export function askPermission(
  live: LiveSession,
  request: PermissionRequest,
  signal: AbortSignal,
  options: PermissionRequestsOptions,
): Promise<PermissionAnswer> {
  const answered = new Promise<PermissionAnswer>((resolve) => {
    live.asking.set(request.requestId, resolve);
    live.options.set(request.requestId, request.options);
    signal.addEventListener("abort", () => resolve("cancelled"), { once: true });
  });
  options.writes.change(live, {
    state: "waiting",
    waitingFor: { kind: "permission", requestId: live.asking.keys().next().value ?? "" },
  });
  return answered.finally(() => {
    live.options.delete(request.requestId);
    if (live.asking.delete(request.requestId)) permissionAnswered(live, options);
  });
}

/**
 * Answers a waiting permission request with one of the agent's options, or
 * cancels it (`optionId: null`). The agent goes on; the state is `running`
 * again (or waits for another request) once written.
 *
 * @param live The session, when it is alive in this run.
 * @param requestId The request, as its `permission` entry names it.
 * @param optionId One of the request's options, or null to cancel it.
 * @param options Where changes go, and whether Sync is stopping.
 * @returns False when no such request waits (answered, cancelled, or asked before a restart).
 * @throws {InvalidInputError} when the option is not one the agent offered.
 */
export async function answerPermission(
  live: LiveSession | undefined,
  requestId: string,
  optionId: string | null,
  options: PermissionRequestsOptions,
): Promise<boolean> {
  const resolve = live?.asking.get(requestId);
  if (!live || !resolve) return false;
  if (optionId !== null) {
    // The live request's options: its stored entry may have been cut to fit.
    const offered = live.options.get(requestId) ?? [];
    if (!offered.some((o) => o.optionId === optionId)) {
      throw new InvalidInputError(
        `${JSON.stringify(optionId)} is not one of the options the agent offered: ` +
          offered.map((o) => `${o.optionId} (${o.name})`).join(", "),
      );
    }
  }
  live.asking.delete(requestId);
  resolve(optionId === null ? "cancelled" : { optionId });
  await permissionAnswered(live, options);
  return true;
}

/**
 * A request was answered: the session is `running` again, or still
 * `waiting` for the oldest request still open.
 */
async function permissionAnswered(
  live: LiveSession,
  options: PermissionRequestsOptions,
): Promise<void> {
  if (options.stopping() || !live.working) return;
  const oldest: string | undefined = live.asking.keys().next().value;
  await options.writes.change(
    live,
    oldest === undefined
      ? { state: "running", waitingFor: null }
      : { state: "waiting", waitingFor: { kind: "permission", requestId: oldest } },
  );
}
