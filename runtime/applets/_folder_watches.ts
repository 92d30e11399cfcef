/**
 * Observation: the folders of connected devices in observation mode that
 * are not paused, each watched (`Deno.watchFs` by default); a change calls
 * `onQuiet` once the folder is quiet for `APPLET_LIMITS.observationDebounceMs`.
 * At most `APPLET_LIMITS.maxWatchedFolders` are watched. Private to the
 * applets' folder.
 *
 * @module
 */
import { describeError } from "../internal/describe_error.ts";
import { APPLET_LIMITS } from "../limits.ts";
import type { Account } from "./account.ts";
import { readDeviceRecord } from "./device_record.ts";
import { accountsPrefix } from "./keys.ts";
import type { Scheduler } from "./scheduler.ts";
import type { DeviceDeclaration } from "./_device_declaration.ts";

/** Options for {@linkcode FolderWatches}. */
export interface FolderWatchesOptions {
  /** Its debounce timers. */
  scheduler: Scheduler;
  /** Watches a folder. */
  watch: (folder: string) => Deno.FsWatcher;
  /** Finds the device a package declares in a project. */
  deviceOf: (project: string, pkg: string) => Promise<DeviceDeclaration | null>;
  /** Called once a device's folder is quiet after a change. */
  onQuiet: (project: string, pkg: string) => void;
  /** Where a folder that cannot be watched is said. */
  log: (line: string) => void;
}

/** A folder watched for a device. */
interface Watched {
  folder: string;
  watcher: Deno.FsWatcher;
  cancelDebounce?: () => void;
}

/** The watched folders of the devices in observation mode. */
export class FolderWatches {
  #options: FolderWatchesOptions;
  #watched = new Map<string, Watched>();

  /**
   * Watches nothing until {@linkcode FolderWatches.follow} is called.
   *
   * @param options Timers, the watcher, devices, and what a quiet folder calls.
   */
  constructor(options: FolderWatchesOptions) {
    this.#options = options;
  }

  /** Folders watched now. */
  get folders(): string[] {
    return [...this.#watched.values()].map((watched) => watched.folder);
  }

  /**
   * Watches the folder of every connected device in observation mode that is
   * not paused, and no other.
   *
   * @param kv The installation's KV.
   */
  async follow(kv: Deno.Kv): Promise<void> {
    const wanted = await this.#wanted(kv);
    for (const [id, watched] of this.#watched) {
      if (wanted.get(id) === watched.folder) continue;
      close(watched);
      this.#watched.delete(id);
    }
    for (const [id, folder] of wanted) {
      if (this.#watched.has(id)) continue;
      let watcher: Deno.FsWatcher;
      try {
        watcher = this.#options.watch(folder);
      } catch (error) {
        this.#options.log(`[tasks] cannot watch ${folder}: ${describeError(error).message}`);
        continue;
      }
      const watched: Watched = { folder, watcher };
      this.#watched.set(id, watched);
      void this.#listen(id, watched);
    }
  }

  /** Closes every watcher. */
  closeAll(): void {
    for (const watched of this.#watched.values()) close(watched);
    this.#watched.clear();
  }

  /** The folders to watch, by device. */
  async #wanted(kv: Deno.Kv): Promise<Map<string, string>> {
    const wanted = new Map<string, string>();
    for await (const entry of kv.list<Account>({ prefix: accountsPrefix() })) {
      const account = entry.value;
      if (account.kind !== "folder") continue;
      const [, project, pkg] = entry.key as [string, string, string];
      const device = await this.#options.deviceOf(project, pkg).catch(() => null);
      if (!device?.modes.includes("observation")) continue;
      if ((await readDeviceRecord(kv, project, pkg)).paused) continue;
      if (wanted.size >= APPLET_LIMITS.maxWatchedFolders) break;
      wanted.set(JSON.stringify([project, pkg]), account.folder);
    }
    return wanted;
  }

  /** Calls `onQuiet` once the folder is quiet for the debounce after a change. */
  async #listen(id: string, watched: Watched): Promise<void> {
    const [project, pkg] = JSON.parse(id) as [string, string];
    try {
      for await (const _ of watched.watcher) {
        watched.cancelDebounce?.();
        watched.cancelDebounce = this.#options.scheduler.after(
          APPLET_LIMITS.observationDebounceMs,
          () => this.#options.onQuiet(project, pkg),
        );
      }
    } catch { /* the folder went away: the next run says so */ }
  }
}

/** Stops watching a folder and its debounce. */
function close(watched: Watched): void {
  watched.cancelDebounce?.();
  try {
    watched.watcher.close();
  } catch { /* closed already */ }
}
