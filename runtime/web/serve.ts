/**
 * `sync serve`: the long-running process. Serves the app on 127.0.0.1 until
 * interrupted.
 *
 * @module
 */
import { join } from "node:path";
import { clearClockLease, Clock, type ClockHost } from "../clock/mod.ts";
import { ConflictError } from "../errors.ts";
import type { IsolatePool } from "../isolate/mod.ts";
import type { OpenHost } from "../lifecycle/mod.ts";
import { sweepStaleStaging } from "../packages/mod.ts";
import type { Hono } from "hono";
import { createApp } from "./app.ts";

/** What serving needs of the host: the app's and the clock's, the installation folder and the isolates. */
export interface ServeHost extends ClockHost, OpenHost {
  /** The installation folder: its token and its clock lock live there. */
  readonly home: string;
  /** The isolates, warmed before the first request. */
  readonly pool: IsolatePool;
}

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** The port on 127.0.0.1; 0 lets the system pick one (the line logged says which). */
  port: number;
  /** Where the process's lines go: the address to open, the clock's notices. */
  log: (line: string) => void;
  /** Stops serving when aborted (tests). */
  signal?: AbortSignal;
  /** The person's home folder, which the app never opens as a project. */
  userHome?: string;
}

/**
 * Serves until interrupted (or `signal` aborts).
 *
 * @param host What the app and the clock run on.
 * @param options The port, where lines go, and what stops it.
 * @throws {ConflictError} when the port is taken.
 */
export async function serve(host: ServeHost, options: ServeOptions): Promise<void> {
  const token = await installationToken(host.home);
  // An install killed while it unpacked an archive left its staging folder;
  // no install of this installation can be running in a process that has gone.
  for (const left of await sweepStaleStaging(host.home)) {
    options.log(`Removed ${left}, left by an install that was stopped`);
  }
  await host.pool.warm();
  // The app checks the port requests are addressed to, which with port 0 is
  // known only once the server listens; no request comes before that.
  let app: Hono | undefined;
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port,
      signal: options.signal,
      onListen: ({ port }) => {
        app = createApp(host, { token, port, userHome: options.userHome });
        options.log(`Sync is serving at http://127.0.0.1:${port}/?token=${token}`);
      },
    }, (request, info) => app!.fetch(request, info));
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      throw new ConflictError(
        `Cannot serve on 127.0.0.1:${options.port}: the port is taken (another sync serve?). ` +
          `Stop it, or pass --port <port> or set SYNC_PORT`,
      );
    }
    throw error;
  }
  const clock = new Clock(host, { log: options.log });
  const lock = await takeClock(host, options.log);
  lock.taken.then(() => {
    // The clock looks once now, so a package just installed proves itself
    // within the minute, and then once a minute.
    if (!options.signal?.aborted) clock.start({ signal: options.signal });
  });
  let signalled = 0;
  const stop = () => {
    if (++signalled > 1) Deno.exit(130);
    options.log(
      clock.running
        ? "Stopping (a handler running now finishes first; press Ctrl-C again to stop at once)"
        : "Stopping",
    );
    server.shutdown();
  };
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) {
    try {
      Deno.addSignalListener(signal, stop);
    } catch { /* no such signal here */ }
  }
  await server.finished;
  await clock.stop();
  lock.release();
  for (const signal of signals) {
    try {
      Deno.removeSignalListener(signal, stop);
    } catch { /* was never added */ }
  }
}

/**
 * Waits for the installation's clock: an OS lock on `<home>/clock.lock`,
 * held while this process runs and let go by the OS however it ends, so a
 * serve started after another crashed takes the clock at once. While another
 * serve holds it, this one serves the app and says so once.
 */
async function takeClock(
  host: ServeHost,
  log: (line: string) => void,
): Promise<{ taken: Promise<void>; release: () => void }> {
  const file = await Deno.open(join(host.home, "clock.lock"), {
    read: true,
    write: true,
    create: true,
  });
  let waiting = true;
  const taken = file.lock(true).then(async () => {
    // Every earlier serve has stopped or died: a lease one of them left is stale.
    await clearClockLease(host.kv);
    if (!waiting) log("This process runs the clock now");
    waiting = false;
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([taken, new Promise((resolve) => timer = setTimeout(resolve, 200))]);
  clearTimeout(timer);
  if (waiting) {
    waiting = false;
    log(
      "Another sync serve runs the clock for this installation; this one serves the app " +
        "and takes the clock when that one stops",
    );
  }
  return {
    taken: taken.catch(() => {/* closed while waiting: this process is stopping */}),
    release: () => {
      try {
        file.close();
      } catch { /* already closed */ }
    },
  };
}

/** The installation's token, made once and kept in `<home>/token`. */
export async function installationToken(home: string): Promise<string> {
  const file = join(home, "token");
  try {
    const token = (await Deno.readTextFile(file)).trim();
    if (token.length >= 32) return token;
  } catch { /* made below */ }
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await Deno.writeTextFile(file, token + "\n", { mode: 0o600 });
  return token;
}
