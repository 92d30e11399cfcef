/**
 * What the web app needs of the host: the installation, the clock's time and
 * the limits calls run under, the projects' memories, and what runs handlers
 * (opening a project and removing a package run theirs).
 *
 * @module
 */
import type { HandlerLimits } from "../limits.ts";
import type { OpenHost, RemoveHost } from "../lifecycle/mod.ts";

/** What the web app needs of the host; the host of `sync serve` is one. */
export interface WebHost extends OpenHost, RemoveHost {
  /** The limits calls run under: the schedule rows tell a stopped call by them. */
  readonly limits: Pick<HandlerLimits, "timeoutMs" | "workerGraceMs">;
}
