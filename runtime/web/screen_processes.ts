/**
 * The sockets of the screens that start programs, and the rules for when
 * those programs stop: when the screen's socket closes (the screen reloaded
 * or was closed, or its channel dropped), when a new socket opens for the
 * same screen instance, when the package is removed from the project or
 * updated, and when the app stops.
 *
 * @module
 */
import type { EventBus, EventSubscription } from "../event_bus.ts";
import type { Supervisor } from "../supervisor/mod.ts";
import { ProcessChannel, type ScreenAddress } from "./process_channel.ts";

/** What the screens' programs need of the host. */
export interface ScreenProcessesHost {
  /** The installation's KV: approvals, read at every start. */
  readonly kv: Deno.Kv;
  /** Where removals and updates are told. */
  readonly events: EventBus;
}

/** Options for {@linkcode ScreenProcesses}. */
export interface ScreenProcessesOptions {
  /** Starts and stops the programs, and holds them to its limits. */
  supervisor: Supervisor;
}

/** WebSocket close code for a socket another one for the same screen instance replaced. */
export const REPLACED_CLOSE_CODE = 4000;
/** WebSocket close code for the sockets closed because the app stops. */
const GOING_AWAY_CLOSE_CODE = 1001;
/** How long a wait for the next fact lasts before it looks again, in ms. */
const WATCH_MS = 60_000;

/**
 * Every screen's socket to its programs. `serve` makes one over its
 * supervisor and hands it to the app, which upgrades `GET /api/processes`
 * through {@linkcode ScreenProcesses.accept}.
 */
export class ScreenProcesses {
  #host: ScreenProcessesHost;
  #supervisor: Supervisor;
  #channels = new Set<ProcessChannel>();
  #byScreen = new Map<string, ProcessChannel>();
  /** Per package id, how often it was installed or approved. */
  #updates = new Map<string, number>();
  /** Per project and package id, how often it was removed. */
  #removals = new Map<string, number>();
  #closed = false;
  #subscription: EventSubscription;

  /**
   * Watches the host's events for removals and updates from now on.
   *
   * @param host The installation's KV and event bus.
   * @param options The supervisor.
   */
  constructor(host: ScreenProcessesHost, options: ScreenProcessesOptions) {
    this.#host = host;
    this.#supervisor = options.supervisor;
    // Only installs and removals matter here (`resync` comes whatever the kinds).
    this.#subscription = host.events.subscribe({ types: new Set(["installed", "removed"]) });
    this.#watch().catch(() => {/* the bus closed */});
  }

  /** True once closed: no socket is taken any more. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The sockets open now. */
  get channels(): readonly ProcessChannel[] {
    return [...this.#channels];
  }

  /**
   * Upgrades a request to the screen's socket. A socket already open for
   * the same screen instance is closed first, and its programs stopped: a
   * screen that reloaded never reaches what it started before.
   *
   * @param request The upgrade request, its guards passed.
   * @param address Which screen it is for.
   * @returns The `101 Switching Protocols` response.
   */
  accept(request: Request, address: ScreenAddress): Response {
    const { socket, response } = Deno.upgradeWebSocket(request);
    const instance = `${address.project}\0${address.packageId}\0${address.screen}`;
    const channel = new ProcessChannel(socket, {
      address,
      supervisor: this.#supervisor,
      kv: this.#host.kv,
      standing: () => this.#standing(address),
      onClose: (closed) => {
        this.#channels.delete(closed);
        if (this.#byScreen.get(instance) === closed) this.#byScreen.delete(instance);
      },
    });
    if (this.#closed) {
      socket.addEventListener(
        "open",
        () => channel.close(GOING_AWAY_CLOSE_CODE, "Sync is stopping"),
      );
      return response;
    }
    this.#byScreen.get(instance)?.close(
      REPLACED_CLOSE_CODE,
      "A newer socket opened for this screen; its programs were stopped",
    );
    this.#channels.add(channel);
    this.#byScreen.set(instance, channel);
    return response;
  }

  /**
   * Closes every socket, which stops every program started through them,
   * and takes no new one: for when the app stops.
   */
  close(): void {
    this.#closed = true;
    this.#subscription.close();
    for (const channel of [...this.#channels]) {
      channel.close(GOING_AWAY_CLOSE_CODE, "Sync is stopping");
    }
  }

  #standing(address: ScreenAddress): string {
    const removals = this.#removals.get(`${address.project}\0${address.packageId}`) ?? 0;
    return `${this.#updates.get(address.packageId) ?? 0}:${removals}`;
  }

  async #watch(): Promise<void> {
    const subscription = this.#subscription;
    try {
      while (!this.#closed && !subscription.closed) {
        const event = await subscription.next(WATCH_MS);
        if (event === null) continue;
        if (event.type === "resync") {
          // Facts were lost: whichever they were, nothing may run past them.
          for (const channel of this.#channels) channel.stopProcesses();
        } else if (event.type === "installed") {
          // An update changes what serves every project that has the package.
          const id = event.packageId;
          this.#updates.set(id, (this.#updates.get(id) ?? 0) + 1);
          this.#stopWhere((address) => address.packageId === id);
        } else if (event.type === "removed") {
          const removal = `${event.project}\0${event.packageId}`;
          this.#removals.set(removal, (this.#removals.get(removal) ?? 0) + 1);
          this.#stopWhere((address) =>
            address.project === event.project && address.packageId === event.packageId
          );
        }
      }
    } finally {
      subscription.close();
    }
  }

  #stopWhere(matches: (address: ScreenAddress) => boolean): void {
    for (const channel of this.#channels) {
      if (matches(channel.address)) channel.stopProcesses();
    }
  }
}
