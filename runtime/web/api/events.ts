/**
 * `GET /api/events?project=<folder>`: what happens in a project, as it
 * happens, as Server-Sent Events — receipts written, handlers starting and
 * ending (the lamps), switches, installs (with their progress) and removals,
 * whoever made them: the page, the CLI (whose commands the serve runs) or
 * the clock. Each event's name is its `type` and its data the event as JSON
 * (`events_types.ts`). The stream opens with `ready`; a page that falls too
 * far behind is sent `resync` in place of what it missed, and reads the
 * state again; a quiet stream sends a comment every `EVENT_LIMITS.heartbeatMs`.
 *
 * While a project's stream is open, the folders of its linked packages are
 * watched (`linked_folders.ts`), and a change there is told as
 * `package-changed`.
 *
 * `GET /api/projects/events`: the same, for the start page, of every
 * project but only the facts that change its lists — a project opened, a
 * package installed or removed, a project taken off the clock.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { EventBus, EventSubscription } from "../../event_bus.ts";
import { EVENT_LIMITS } from "../../limits.ts";
import type { SyncEvent } from "../../sync_event.ts";
import { projectFolder } from "../project_folder.ts";
import type { LinkedFolders } from "../linked_folders.ts";
import type { ReadyEvent } from "./events_types.ts";

/** The facts that change the start page's lists of projects. */
export const PROJECT_LIST_FACTS: ReadonlySet<SyncEvent["type"]> = new Set([
  "opened",
  "installed",
  "removed",
  "unscheduled",
]);

/** Options for {@linkcode eventRoutes}. */
export interface EventRoutesOptions {
  /** How often a quiet stream sends a comment, in ms; `EVENT_LIMITS.heartbeatMs` when absent. */
  heartbeatMs?: number;
  /** The most events held for one stream; `EVENT_LIMITS.maxQueuedEvents` when absent. */
  maxQueued?: number;
  /**
   * Watches the linked folders of a project's packages while its stream is
   * open (`runtime/web/linked_folders.ts`); nothing is watched when absent.
   */
  linkedFolders?: Pick<LinkedFolders, "watchProject">;
}

/**
 * The event streams' routes, to mount at `/api`.
 *
 * @param bus The owner's bus, where what happens is published.
 * @param options The heartbeat and the queue's bound (tests pass small ones).
 * @returns A Hono app for `app.route()`. Internal: its type is Hono's.
 * @internal
 */
export function eventRoutes(bus: EventBus, options: EventRoutesOptions = {}): Hono {
  const heartbeatMs = options.heartbeatMs ?? EVENT_LIMITS.heartbeatMs;
  const routes = new Hono();
  routes.get("/events", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    // Subscribed before the stream opens, so nothing published after `ready` is missed.
    const subscription = bus.subscribe({ project, maxQueued: options.maxQueued });
    // While the window is open, a change to a linked package's folder is told as it happens.
    const unwatch = options.linkedFolders?.watchProject(project);
    return stream(c, subscription, { type: "ready", project }, heartbeatMs, unwatch);
  });
  routes.get("/projects/events", (c) => {
    const subscription = bus.subscribe({ types: PROJECT_LIST_FACTS, maxQueued: options.maxQueued });
    return stream(c, subscription, { type: "ready" }, heartbeatMs);
  });
  return routes;
}

/**
 * Streams a subscription's facts, after `ready`, until the page goes or the
 * bus closes it; then calls `ended`.
 */
function stream(
  c: Context,
  subscription: EventSubscription,
  ready: ReadyEvent,
  heartbeatMs: number,
  ended: () => void = () => {},
): Response {
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => {
      subscription.close();
      ended();
    });
    try {
      await stream.writeSSE({ event: ready.type, data: JSON.stringify(ready) });
      while (!stream.aborted && !subscription.closed) {
        const event = await subscription.next(heartbeatMs);
        if (stream.aborted || subscription.closed) break;
        // A write waits while the page does not read; meanwhile the bus holds
        // at most the subscription's bound for it, then a `resync`.
        if (event === null) await stream.write(": heartbeat\n\n");
        else await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
      }
    } finally {
      subscription.close();
      ended();
    }
  });
}
