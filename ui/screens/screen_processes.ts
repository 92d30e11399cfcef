/**
 * What a screen's `ctx.host.spawn` reaches on the app's side: the programs
 * its package declares under `host.processes`, started by the supervisor for
 * this one screen instance. One {@linkcode ScreenProcesses} per instance of a
 * screen (a frame's load); closing it stops every process that instance
 * started, so a screen that reloads or closes leaves nothing running.
 *
 * @module
 */

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
  /** The exit code; null when a signal ended it. */
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
   * Starts the declared program `id`.
   *
   * @param id One of the manifest's `host.processes` ids.
   * @param request Extra arguments, working folder and environment.
   * @param output Where its output goes.
   */
  spawn(id: string, request: SpawnRequest, output: ProcessOutput): Promise<RunningProcess>;
  /** Stops every process this instance started; later spawns are refused. */
  close(): void;
}

/** Refused spawns say this. */
export class ProcessesUnavailableError extends Error {
  /**
   * @param message Why no process can start.
   */
  constructor(message: string) {
    super(message);
    this.name = "ProcessesUnavailableError";
  }
}

/**
 * The processes of one screen instance.
 *
 * This app cannot start processes for screens: no connection to the
 * supervisor is open to a screen, so every spawn is refused, by name.
 *
 * @param _project The project folder.
 * @param packageId The package whose screen it is.
 * @param _instance This load of the screen.
 */
export function openScreenProcesses(
  _project: string,
  packageId: string,
  _instance: string,
): ScreenProcesses {
  return {
    spawn: (id) =>
      Promise.reject(
        new ProcessesUnavailableError(
          `${packageId} cannot start ${id}: host.spawn is not available in this version of ` +
            `Sync, so no screen can start its host.processes`,
        ),
      ),
    close: () => {},
  };
}
