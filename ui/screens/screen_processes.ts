/**
 * What a screen's `ctx.host.spawn` reaches on the app's side: the programs
 * its package declares under `host.processes`, started by the supervisor for
 * this one screen instance over `GET /api/processes` (`process_client.ts`).
 * One {@linkcode ScreenProcesses} per instance of a screen (a frame's load);
 * closing it stops every process that instance started, so a screen that
 * reloads or closes leaves nothing running.
 *
 * @module
 */
import { ProcessClient, ProcessError } from "./process_client.ts";

/** Where a process's output goes, as UTF-8 text. */
export interface ProcessOutput {
  /** Standard output, as it comes. */
  onStdout(text: string): void;
  /** Standard error, as it comes. */
  onStderr(text: string): void;
}

/** How to start a declared program. */
export interface SpawnRequest {
  /** Appended to the declared arguments. */
  args?: string[];
  /** The working folder; `~/` expands, and a missing folder is created. */
  cwd?: string;
  /** Variables to set; `null` removes one. */
  env?: Record<string, string | null>;
}

/** How a process ended. */
export interface ProcessEnd {
  /** The exit code; null when it was not heard. */
  code: number | null;
  /** The signal that ended it; null when it exited. */
  signal: string | null;
}

/** A process one screen instance started. */
export interface RunningProcess {
  /** Its process id. */
  pid: number;
  /** Writes to its standard input. */
  write(text: string): void | Promise<void>;
  /** Closes its standard input. */
  end(): void | Promise<void>;
  /** Stops its process group: SIGTERM, then SIGKILL after 3 s. */
  kill(): void | Promise<void>;
  /** Settles when it has ended. */
  exited: Promise<ProcessEnd>;
}

/** The processes of one screen instance. */
export interface ScreenProcesses {
  /**
   * Starts the declared program `id`. A refusal rejects with an `Error`
   * named as Sync named it (`PermissionDeniedError`, `NotFoundError`, …).
   *
   * @param id One of the manifest's `host.processes` ids.
   * @param request Extra arguments, working folder and environment.
   * @param output Where its output goes.
   */
  spawn(id: string, request: SpawnRequest, output: ProcessOutput): Promise<RunningProcess>;
  /** Stops every process this instance started; later spawns are refused. */
  close(): void;
}

/** Options for {@linkcode openScreenProcesses}. */
export interface OpenScreenProcessesOptions {
  /** Opens the socket at a path of the app's origin; the page's own `WebSocket` unless given. */
  connect?: (path: string) => WebSocket;
}

/**
 * The processes of one screen instance: a {@linkcode ProcessClient} whose
 * socket opens at the first spawn. The package is the one the app shows the
 * frame for, never one the screen names; `instance` is new for each load, so
 * a reload never reaches what the load before started.
 *
 * @param project The project folder.
 * @param packageId The package whose screen it is.
 * @param instance This load of the screen.
 * @param options How the socket is opened.
 */
export function openScreenProcesses(
  project: string,
  packageId: string,
  instance: string,
  options: OpenScreenProcessesOptions = {},
): ScreenProcesses {
  const client = new ProcessClient({
    project,
    packageId,
    screen: instance,
    ...(options.connect ? { connect: options.connect } : {}),
    onCallbackError: (error) =>
      console.warn(`An output callback of ${packageId}'s screen failed:`, error),
  });
  return {
    async spawn(id, request, output) {
      const running = await client.spawn(id, request, output).catch(rethrowNamed);
      return {
        pid: running.pid,
        write: (text) => running.write(text).catch(rethrowNamed),
        end: () => running.end().catch(rethrowNamed),
        kill: () => running.kill().catch(rethrowNamed),
        exited: running.exited,
      };
    },
    close: () => client.close(),
  };
}

/** Throws a refusal again under the name Sync gave it, which is the name the screen sees. */
function rethrowNamed(error: unknown): never {
  if (!(error instanceof ProcessError)) throw error;
  const crossing = new Error(error.message);
  crossing.name = error.kind;
  throw crossing;
}
