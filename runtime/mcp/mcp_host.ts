/**
 * What sync-mcp uses of the installation's owner. The `Host` is one; the
 * server takes this rather than the whole host.
 *
 * @module
 */
import type { EventBus } from "../event_bus.ts";
import type { HandlerCaller, WorkStateReader } from "../host/mod.ts";
import type { DefinedAgents } from "../work/mod.ts";

/** What sync-mcp uses of the process that owns the installation. */
export interface McpHost extends HandlerCaller {
  /** The installation's KV: refs, approvals, the cursors' secret. */
  readonly kv: Deno.Kv;
  /** The host's clock, in ms. */
  readonly now: () => number;
  /** Where installs and removals are told, so that a connected client's tools follow them. */
  readonly events: EventBus;
  /**
   * The project's memory KV, held open by the host.
   *
   * @param project The project's resolved folder.
   */
  projectMemory(project: string): Promise<Deno.Kv>;
  /**
   * Where work stands once something performs it (the state of the session
   * performing an order), the reader `work.state()` uses; absent, an order
   * is told as it was written, `ordered`.
   */
  readonly workState?: WorkStateReader;
  /** The agents `work_order` may name; any name is taken when absent. */
  readonly agents?: DefinedAgents;
}
