/**
 * `sync serve`: the long-running process. It owns the installation while it
 * runs — the caller takes the installation first (`tryOwnInstallation`) —
 * so it serves the app, runs the clock, and runs the commands the CLI sends
 * it, until interrupted. The app answers the browser on a TCP port on
 * 127.0.0.1 and the installation's own clients (the CLI, `sync mcp`) on a
 * Unix socket in the installation folder, which only this person can reach.
 *
 * @module
 */
import { type AgentLauncher, supervisedLauncher, WorkPerformer } from "../agents/mod.ts";
import { TaskRunner } from "../applets/mod.ts";
import { clearClockLease, Clock, type ClockHost } from "../clock/mod.ts";
import { ConflictError } from "../errors.ts";
import { UPLOAD_LIMITS } from "../limits.ts";
import type { IsolatePool } from "../isolate/mod.ts";
import { UploadStore } from "./upload_store.ts";
import { sweepStaleStaging } from "../packages/mod.ts";
import {
  type InstallationOwnership,
  installationToken,
  removeLeftOwnerSocket,
} from "../projects/mod.ts";
import { McpEndpoint, type McpHost, SessionTokenRegistry, type SessionTokens } from "../mcp/mod.ts";
import { syncMcpOffer } from "./sync_mcp_offer.ts";
import type { Supervisor } from "../supervisor/mod.ts";
import type { CommandOutput, CommandRequest } from "./api/commands.ts";
import { createApp, type WebApp } from "./app.ts";
import { ScreenProcesses } from "./screen_processes.ts";
import { LinkedFolders } from "./linked_folders.ts";
import type { WebHost } from "./web_host.ts";

/** What serving needs of the host: the app's and the clock's, the installation folder and the isolates. */
export interface ServeHost extends Omit<ClockHost, "events">, WebHost, McpHost {
  /** The installation folder: its token lives there. */
  readonly home: string;
  /** The isolates, warmed before the first request. */
  readonly pool: IsolatePool;
}

/**
 * What a command the CLI sends runs with besides the host: the serve's own
 * performer of conversations, so a conversation the command changes is
 * changed as the window changes it (its live agent stopped first, a running
 * one refused, the change told on the event stream).
 */
export interface ServedParts {
  /** The serve's performer of work and conversations. */
  work: WorkPerformer;
  /** The serve's task runner, which a person's decisions about a device go through. */
  tasks?: TaskRunner;
}

/** Runs a command the CLI sends the owner, with the serve's own parts; answers its exit code. */
export type ServedCommandRunner = (
  request: CommandRequest,
  output: CommandOutput,
  served: ServedParts,
) => Promise<number>;

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  /** The port on 127.0.0.1; 0 lets the system pick one (the line logged says which). */
  port: number;
  /** Where the process's lines go: the address to open, the clock's notices. */
  log: (line: string) => void;
  /** Stops serving when aborted (tests). */
  signal?: AbortSignal;
  /** The installation this process owns; serve says there where it answers. */
  ownership?: InstallationOwnership;
  /**
   * The owner's socket (`ownerSocketPath(home)`), where the CLI and `sync mcp`
   * reach this serve; one a killed serve left there is removed first. Absent,
   * the app answers on its port only.
   */
  socket?: string;
  /** Runs the commands the CLI sends the owner; absent, the CLI's commands are not taken. */
  commands?: ServedCommandRunner;
  /** Starts agents' programs for work; the performer's own unless given. */
  launchAgent?: AgentLauncher;
  /**
   * The tokens of the agent sessions Sync starts, which `/mcp` takes besides
   * the installation's; a registry of its own unless given. Sessions are
   * offered sync-mcp only when it is a registry, which can issue them.
   */
  sessionTokens?: SessionTokens;
  /**
   * The processes this serve starts: what a killed serve left is swept at
   * start, and every one is stopped when serving stops, or killed at once
   * when the process exits another way.
   */
  supervisor?: Supervisor;
}

/**
 * Serves until interrupted (or `signal` aborts). The caller owns the
 * installation for as long as this runs.
 *
 * @param host What the app and the clock run on.
 * @param options The port, where lines go, what stops it, and the ownership to announce.
 * @throws {ConflictError} when the port is taken, or something other than a socket is at the socket's path.
 * @throws {ConflictError} when the socket's path is too long for the system.
 * @throws {UnsafeFileError} when the token file may be read by other users.
 */
export async function serve(host: ServeHost, options: ServeOptions): Promise<void> {
  const token = await installationToken(host.home);
  // An install killed while it unpacked an archive left its staging folder;
  // no install of this installation can be running in a process that has gone.
  for (const left of await sweepStaleStaging(host.home)) {
    options.log(`Removed ${left}, left by an install that was stopped`);
  }
  // Uploads nobody installed go after an hour unused: looked for now, and
  // every tenth of that while serving.
  const uploads = new UploadStore(host.home, { now: host.now });
  await uploads.sweep();
  const sweeping = setInterval(
    () => uploads.sweep().catch(() => {/* looked for again next time */}),
    UPLOAD_LIMITS.keepUnusedMs / 6,
  );
  // Work is performed while this serves: sessions a stopped Sync left become
  // interrupted now, and orders waiting in the projects' outboxes begin.
  const sessionTokens = options.sessionTokens ?? new SessionTokenRegistry();
  let port = 0;
  // Devices' tasks run beside the clock; a person's decisions about a device go through it.
  const tasks = new TaskRunner(host, { log: options.log });
  const work = new WorkPerformer({
    kv: host.kv,
    events: host.events,
    projectMemory: (project) => host.projectMemory(project),
    now: host.now,
    log: options.log,
    launch: options.launchAgent ??
      (options.supervisor ? supervisedLauncher(options.supervisor) : undefined),
    mcpServersFor: (session, agent) =>
      sessionTokens instanceof SessionTokenRegistry
        ? syncMcpOffer(sessionTokens, port, session, agent)
        : Promise.resolve({ servers: [] }),
  });
  const mcp = new McpEndpoint(host, {
    token,
    sessionTokens,
    log: options.log,
    // An order an agent writes leaves no receipt for the performer to hear.
    workOrdered: (project) => void work.scan(project),
  });
  const processes = options.supervisor &&
    new ScreenProcesses(host, { supervisor: options.supervisor });
  // A window's lamps follow the linked folders of its project's packages as they are written.
  const linkedFolders = new LinkedFolders(host.kv, host.events, { log: options.log });
  // Event streams, MCP sessions and screens' sockets never end by themselves:
  // ended so the server can stop (a socket's programs stop with it).
  const endStreams = () => {
    processes?.close();
    linkedFolders.close();
    host.events.closeWatchers();
    mcp.close().catch(() => {/* each session closes on its own */});
  };
  options.signal?.addEventListener("abort", endStreams);
  await host.pool.warm();
  // The app checks the port requests are addressed to, which with port 0 is
  // known only once the server listens; no request comes before that.
  let app: WebApp | undefined;
  const commands = options.commands;
  let server: Deno.HttpServer<Deno.NetAddr>;
  let socketServer: Deno.HttpServer<Deno.UnixAddr> | undefined;
  try {
    // A socket a killed serve left is in the way; the caller owns the installation, so none answers on it.
    if (options.socket !== undefined) await removeLeftOwnerSocket(options.socket);
    server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port,
      signal: options.signal,
      onListen: (address) => {
        port = address.port;
        app = createApp(host, {
          token,
          port,
          commands: commands && ((request, output) => commands(request, output, { work, tasks })),
          work,
          mcp,
          processes,
          linkedFolders,
          tasks,
        });
        options.log(`Sync is serving at http://127.0.0.1:${port}/?token=${token}`);
      },
    }, (request) => app!.fetch(request));
    if (options.socket !== undefined) {
      try {
        socketServer = serveOnSocket(options.socket, options.signal, (r) => app!.socketFetch(r));
      } catch (error) {
        server.shutdown();
        throw error;
      }
    }
  } catch (error) {
    processes?.close();
    linkedFolders.close();
    if (error instanceof Deno.errors.AddrInUse) {
      throw new ConflictError(
        `Cannot serve on 127.0.0.1:${options.port}: the port is taken (by another program). ` +
          `Stop it, or pass --port <port> or set SYNC_PORT`,
      );
    }
    throw error;
  }
  const supervisor = options.supervisor;
  // Exits that run no more asynchronous code: a second Ctrl-C, an uncaught error.
  const killProcesses = () => supervisor?.killAllNow();
  const exitEvents = ["unload", "error", "unhandledrejection"];
  for (const event of exitEvents) globalThis.addEventListener(event, killProcesses);
  // Ctrl-C is heard from the moment the port is taken, so one pressed while
  // serve still starts stops it as any other (the clock is then not started).
  const clock = new Clock(host, { log: options.log });
  let signalled = 0;
  const stop = () => {
    if (++signalled > 1) Deno.exit(130);
    options.log(
      clock.running
        ? "Stopping (a handler running now finishes first; press Ctrl-C again to stop at once)"
        : "Stopping",
    );
    endStreams();
    server.shutdown();
    socketServer?.shutdown();
  };
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) {
    try {
      Deno.addSignalListener(signal, stop);
    } catch { /* no such signal here */ }
  }
  const starting = () => !options.signal?.aborted && signalled === 0;
  const left = await supervisor?.sweepOrphans().catch((error: Error) => {
    options.log(`Could not look for processes a killed serve left: ${error.message}`);
    return [];
  });
  for (const group of left ?? []) {
    if (group.killed === 0) continue;
    options.log(
      `Stopped ${group.command} (process group ${group.pgid}), left by a serve that was killed`,
    );
  }
  // Owning the installation means every earlier serve has stopped or died: a clock
  // lease one of them left is stale. The clock looks once now, so a package just
  // installed proves itself within the minute, and then once a minute.
  await clearClockLease(host.kv);
  if (starting()) await work.start();
  if (starting()) clock.start({ signal: options.signal });
  if (starting()) await tasks.start({ signal: options.signal });
  // Said last, once everything answers: the CLI sends its commands here from now on.
  await options.ownership?.tell({ port: server.addr.port, socket: options.socket });
  await Promise.all([server.finished, socketServer?.finished]);
  linkedFolders.close();
  // Sessions are stopped as interrupted before the supervisor stops their agents' processes.
  await work.stop();
  await supervisor?.close();
  for (const event of exitEvents) globalThis.removeEventListener(event, killProcesses);
  clearInterval(sweeping);
  options.signal?.removeEventListener("abort", endStreams);
  await clock.stop();
  await tasks.stop();
  for (const signal of signals) {
    try {
      Deno.removeSignalListener(signal, stop);
    } catch { /* was never added */ }
  }
}

/** The app on the owner's socket, where the installation's own clients reach it. */
function serveOnSocket(
  path: string,
  signal: AbortSignal | undefined,
  handler: (request: Request) => Response | Promise<Response>,
): Deno.HttpServer<Deno.UnixAddr> {
  try {
    return Deno.serve({ path, signal, onListen: () => {} }, handler);
  } catch (error) {
    // The system bounds a socket's path (about 100 bytes); the folder's path is the person's.
    if (error instanceof TypeError && /SUN_LEN/.test(error.message)) {
      throw new ConflictError(
        `Cannot listen on ${path}, the socket the CLI reaches sync serve on: its path is ` +
          `${new TextEncoder().encode(path).length} bytes, longer than this system allows for ` +
          `a socket; set SYNC_HOME to a shorter folder (moving the installation there)`,
      );
    }
    throw error;
  }
}
