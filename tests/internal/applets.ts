/**
 * Test helpers for applets: a tiny applet package installed in a real host,
 * its device declaration, a task runner over it, and timers a test drives.
 *
 * @module
 */
import { join } from "node:path";
import { type Scheduler, TaskRunner, type TaskRunnerOptions } from "../../runtime/applets/mod.ts";
import type { DeviceDeclaration } from "../../runtime/packages/mod.ts";
import { type TestHost, testHost, type TestHostOptions } from "./packages.ts";

/** Timers a test fires by moving its time on; the runner's `now()` reads the same time. */
export class FakeScheduler implements Scheduler {
  /** The time, in ms. */
  time = 1_000_000_000_000;
  #timers: { at: number; run: () => void; id: number }[] = [];
  #next = 0;

  /** The runner's time. */
  now = (): number => this.time;

  after(ms: number, run: () => void): () => void {
    const id = this.#next++;
    this.#timers.push({ at: this.time + Math.max(0, ms), run, id });
    return () => {
      this.#timers = this.#timers.filter((timer) => timer.id !== id);
    };
  }

  /** Timers waiting, with how far from now each fires. */
  get waiting(): number[] {
    return this.#timers.map((timer) => timer.at - this.time);
  }

  /** Moves the time on and fires every timer that came due, in order. */
  advance(ms: number): void {
    this.time += ms;
    this.fireDue();
  }

  /** Fires every timer due now. */
  fireDue(): void {
    const due = this.#timers.filter((timer) => timer.at <= this.time).sort((a, b) => a.at - b.at);
    this.#timers = this.#timers.filter((timer) => timer.at > this.time);
    for (const timer of due) timer.run();
  }
}

/** What an applet test is given. */
export interface AppletEnv {
  /** The host, installation and project. */
  env: TestHost;
  /** The runner over them, with the fake timers. */
  runner: TaskRunner;
  /** The runner's timers and time. */
  timers: FakeScheduler;
  /** A real folder to connect as the account. */
  folder: string;
  /** The device the package declares. */
  device: DeviceDeclaration;
  /** Stops the runner, closes the host, removes the folders. */
  close(): Promise<void>;
}

/** Options for {@linkcode appletEnv}. */
export interface AppletEnvOptions {
  /** The service module's source; its handler is `mail.sync`. */
  service: string;
  /** The device's modes; scheduled, on-demand by default. */
  modes?: DeviceDeclaration["modes"];
  /** The account's kind; folder by default. */
  account?: "folder" | "remote";
  /** The host's options (limits). */
  host?: TestHostOptions;
  /** More runner options. */
  runner?: Partial<TaskRunnerOptions>;
}

/**
 * Installs the `mail` applet (handler `mail.sync`, records of kind
 * `mail.message`) into a fresh host, and makes a runner over it.
 *
 * @param options Its service module, modes and account.
 */
export async function appletEnv(options: AppletEnvOptions): Promise<AppletEnv> {
  const timers = new FakeScheduler();
  const env = await testHost({ onDisk: true, ...options.host });
  const modes = options.modes ?? ["scheduled", "on-demand"];
  const kind = options.account ?? "folder";
  const device: DeviceDeclaration = {
    name: "Mail",
    description: "Reads a Maildir folder",
    modes,
    ...(modes.includes("website") ? { url: "https://mail.example", tasks: {} } : {
      account: { kind, description: "Your Maildir" },
      tasks: {
        sync: {
          handler: "mail.sync",
          description: "Reads new and changed mail",
          ...(modes.includes("scheduled") ? { every: "15m" } : {}),
        },
      },
    }),
  };
  await env.install({
    id: "mail",
    permissions: ["background", ...(modes.includes("website") ? [] : [`account.${kind}`])],
    handlers: ["mail.sync"],
    service: options.service,
    // As a manifest says it: a website device declares no tasks at all.
    manifest: { device: modes.includes("website") ? { ...device, tasks: undefined } : device },
  });
  const folder = await Deno.realPath(await Deno.makeTempDir({ prefix: "sync-test-" }));
  const runner = new TaskRunner(env.host, {
    now: timers.now,
    scheduler: timers,
    log: (line) => env.logs.push(line),
    ...options.runner,
  });
  return {
    env,
    runner,
    timers,
    folder,
    device,
    async close() {
      await runner.stop();
      await env.close();
      await Deno.remove(folder, { recursive: true }).catch(() => {});
    },
  };
}

/** Writes a file under a folder, making its parents. */
export async function writeIn(folder: string, path: string, text: string): Promise<void> {
  await Deno.mkdir(join(folder, path, ".."), { recursive: true });
  await Deno.writeTextFile(join(folder, path), text);
}
