/**
 * What the web app needs of the host: the installation, the clock's time and
 * the limits calls run under, the projects' memories, what runs handlers
 * (opening a project and removing a package run theirs), what installs, and
 * the bus the event stream watches.
 *
 * @module
 */
import type { EventBus } from "../event_bus.ts";
import type { Foreground, ResolveHost } from "../host/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import type { InstallCardHost, InstallHost, OpenHost, RemoveHost } from "../lifecycle/mod.ts";

/** What the web app needs of the host; the host of `sync serve` is one. */
export interface WebHost extends OpenHost, RemoveHost, InstallHost, InstallCardHost {
  /** Where what happens in the installation is published; the event stream watches it. */
  readonly events: EventBus;
  /** The limits calls run under: the schedule rows tell a stopped call by them, and the install card checks with them. */
  readonly limits: HandlerLimits;
  /** Performs a screen's `net.fetch`, as a handler's; the global `fetch` when undefined. */
  readonly fetch?: typeof fetch;
  /** Finds the addresses of a name a screen's `net.fetch` reaches; the system resolver when undefined. */
  readonly resolve?: ResolveHost;
  /** A person's requests in flight, which background work lets go first; none are marked when undefined. */
  readonly foreground?: Foreground;
  /** The project's memory KV, opened once per process; a screen reads through it. */
  projectMemory(project: string): Promise<Deno.Kv>;
}
