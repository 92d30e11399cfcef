/**
 * The supervisor of the long-lived processes Sync starts: agent programs
 * for work, and extensions' processes.
 *
 * @module
 */
import { ProcessLimitError, ProcessStartError } from "../errors.ts";
import { PROCESS_LIMITS, type ProcessLimits } from "../limits.ts";
import { childEnvironment } from "./child_environment.ts";
import { findProgram } from "./find_program.ts";
import { childPath } from "./search_path.ts";
import { type GroupNote, ProcessRecord } from "./process_record.ts";
import { processTable } from "./process_table.ts";
import { SupervisedProcess } from "./supervised_process.ts";
import { sweepOrphans, type SweptGroup } from "./sweep_orphans.ts";
import { workingFolder } from "./working_folder.ts";

/** Options for a {@linkcode Supervisor}. */
export interface SupervisorOptions {
  /**
   * The folder where the groups started are written down, such as
   * `$SYNC_HOME/processes`; created when first needed.
   */
  recordFolder: string;
  /** Values no process may see in its environment, such as the installation's token. */
  secrets?: readonly string[];
  /** The limits; {@linkcode PROCESS_LIMITS} unless given (tests pass smaller ones). */
  limits?: ProcessLimits;
  /** The time, in ms since the epoch, for when a process was started. */
  now?: () => number;
  /**
   * The environment processes inherit (before it is scrubbed); Sync's own,
   * read when each process starts, unless given.
   */
  environment?: () => Record<string, string>;
}

/** What to start, for {@linkcode Supervisor.spawn}. */
export interface SpawnOptions {
  /**
   * A program's name (`codex-acp`), looked for in the absolute folders of Sync's own
   * PATH whatever `env` sets, then in `~/.local/bin`; or its path (relative to `cwd`).
   */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /**
   * The folder it starts in: `~` and `~/…` are the person's home; made when
   * missing. Sync's own folder unless given.
   */
  cwd?: string;
  /** Variables to set (a string) or remove (`null`), after Sync's own are removed. */
  env?: Readonly<Record<string, string | null>>;
  /** Called with each piece of its stderr, as text. */
  onStderr?: (text: string) => void;
}

/**
 * Starts programs each in a process group of its own, and makes sure none
 * outlives Sync: {@linkcode Supervisor.stopAll} when Sync stops,
 * {@linkcode Supervisor.killAllNow} when it exits at once, and
 * {@linkcode Supervisor.sweepOrphans} at the next start for a Sync that
 * was killed before it could do either.
 *
 * A process gets Sync's environment without `SYNC_*` variables and without
 * any variable whose value is a secret (the installation's token). Its
 * program is found on Sync's own PATH (then in `~/.local/bin`), never on one
 * the caller gives it.
 */
export class Supervisor {
  #limits: ProcessLimits;
  #now: () => number;
  #secrets: readonly string[];
  #environment: () => Record<string, string>;
  #record: ProcessRecord;
  #recordFolder: string;
  #processes = new Set<SupervisedProcess>();
  /** Processes being started, by owner: they count against the limits already. */
  #starting = new Map<string, number>();
  #closed = false;
  /** The system's start time of each process, as written down. */
  #started = new WeakMap<SupervisedProcess, string>();
  /** Settles once `ps` answered: without it no group could be watched or swept. */
  #canWatch: Promise<unknown> | undefined;

  /**
   * A supervisor with no process yet.
   *
   * @param options Where groups are written down, secrets, limits, the clock.
   */
  constructor(options: SupervisorOptions) {
    this.#recordFolder = options.recordFolder;
    this.#record = new ProcessRecord(options.recordFolder);
    this.#limits = options.limits ?? PROCESS_LIMITS;
    this.#now = options.now ?? Date.now;
    this.#secrets = options.secrets ?? [];
    this.#environment = options.environment ?? (() => Deno.env.toObject());
  }

  /** The file where this supervisor writes down its groups. */
  get recordFile(): string {
    return this.#record.file;
  }

  /**
   * Starts `options.command` for `owner`, in a process group of its own,
   * and writes the group down before answering.
   *
   * @param owner Who it is for: an extension's id, or what an agent session is for.
   *   Only the processes of one owner count against its limit.
   * @param options The program, its arguments, folder and environment.
   * @returns The running process; its pid is its group's id.
   * @throws {ProcessLimitError} when the owner, or Sync in all, runs as many as it may.
   * @throws {ProcessStartError} when the program is not found or cannot start, its folder
   *   cannot be made, `ps` is not on PATH, or the supervisor has stopped.
   */
  async spawn(owner: string, options: SpawnOptions): Promise<SupervisedProcess> {
    const command = options.command;
    if (this.#closed) {
      throw new ProcessStartError(`Cannot start ${command}: Sync is stopping`);
    }
    this.#reserve(owner, command);
    let started: SupervisedProcess | undefined;
    try {
      started = await this.#start(owner, options);
    } finally {
      this.#release(owner);
    }
    try {
      await this.#record.write(this.#notes());
    } catch (error) {
      await started.stop();
      const why = error instanceof Error ? error.message : String(error);
      throw new ProcessStartError(
        `Cannot start ${command}: the process could not be written down in ` +
          `${this.#recordFolder} (${why}), so it could not be stopped if Sync died. ` +
          `Check that the folder is writable`,
      );
    }
    return started;
  }

  /**
   * The processes running, or not yet gone.
   *
   * @param owner Only this owner's.
   */
  running(owner?: string): SupervisedProcess[] {
    return [...this.#processes].filter((p) => owner === undefined || p.owner === owner);
  }

  /**
   * Stops every process of `owner` (when an extension is removed, say).
   *
   * @param owner Whose processes.
   */
  async stopOwner(owner: string): Promise<void> {
    await Promise.all(this.running(owner).map((process) => process.stop()));
    await this.#record.settled();
  }

  /**
   * Stops every process, each group as {@linkcode SupervisedProcess.stop}
   * does, and resolves when all are gone and written off.
   */
  async stopAll(): Promise<void> {
    await Promise.all(this.running().map((process) => process.stop()));
    await this.#record.settled();
  }

  /**
   * Refuses every later start and stops every process: for when Sync stops.
   * A start under way when this is called is stopped as soon as it has begun.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.stopAll();
  }

  /**
   * Sends SIGKILL to every group at once and removes the written record,
   * synchronously, refusing every later start: for the paths by which Sync
   * exits without waiting (a second Ctrl-C, an uncaught error).
   */
  killAllNow(): void {
    this.#closed = true;
    for (const process of this.#processes) process.killNow();
    this.#record.removeNow();
  }

  /**
   * Kills the groups left by supervisors that died (see
   * {@linkcode sweepOrphans}); call it once at start, before any spawn.
   *
   * @returns The groups found left behind.
   * @throws {ProcessStartError} when `ps` is not on PATH.
   */
  sweepOrphans(): Promise<SweptGroup[]> {
    return sweepOrphans(this.#recordFolder, { except: this.#record.file });
  }

  /** Counts a start against the limits, or refuses it. */
  #reserve(owner: string, command: string): void {
    const starting = [...this.#starting.values()].reduce((sum, n) => sum + n, 0);
    const ownerStarting = this.#starting.get(owner) ?? 0;
    const ownerCount = this.running(owner).length + ownerStarting;
    if (ownerCount >= this.#limits.maxPerOwner) {
      throw new ProcessLimitError(
        `Cannot start ${command} for ${owner}: it already runs ${ownerCount} processes, ` +
          `the most one owner may (${this.#limits.maxPerOwner}). Stop one of them first`,
      );
    }
    const total = this.#processes.size + starting;
    if (total >= this.#limits.maxRunning) {
      throw new ProcessLimitError(
        `Cannot start ${command} for ${owner}: Sync already runs ${total} processes, ` +
          `the most at once (${this.#limits.maxRunning}). Stop one, or wait for one to end`,
      );
    }
    this.#starting.set(owner, ownerStarting + 1);
  }

  #release(owner: string): void {
    const left = (this.#starting.get(owner) ?? 1) - 1;
    if (left > 0) this.#starting.set(owner, left);
    else this.#starting.delete(owner);
  }

  async #start(owner: string, options: SpawnOptions): Promise<SupervisedProcess> {
    const command = options.command;
    // Refused before anything starts, rather than started and never swept.
    try {
      await (this.#canWatch ??= processTable([Deno.pid]));
    } catch (error) {
      this.#canWatch = undefined;
      throw error;
    }
    let base: Record<string, string>;
    try {
      base = this.#environment();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotCapable)) throw error;
      throw new ProcessStartError(
        `Cannot start ${command}: Sync passes its environment on to the programs it starts ` +
          `(without its own variables) and may not read it. Run Sync with --allow-env ` +
          `(deno task serve does)`,
      );
    }
    const env = childEnvironment(base, this.#secrets, options.env);
    // The folders a program was looked for in beyond PATH are on its own PATH too, so that a
    // program found in ~/.local/bin finds the programs beside it; unless its starter set PATH.
    if (options.env?.PATH === undefined && env.PATH !== undefined) {
      const path = childPath(env.PATH, base.HOME);
      if (path !== undefined) env.PATH = path;
    }
    const cwd = options.cwd === undefined
      ? Deno.cwd()
      : await workingFolder(options.cwd, base.HOME, command);
    // Looked for on Sync's own PATH, not the one `options.env` gives the process: a caller
    // that sets the environment (a screen) must not thereby choose which program a name runs.
    const program = await findProgram(command, base.PATH, cwd, { home: base.HOME });
    const args = [...(options.args ?? [])];
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(program, {
        args,
        cwd,
        env,
        clearEnv: true,
        // A session of its own (setsid): its pid is its process group's id, so the
        // group can be signalled whole, and a Ctrl-C meant for Sync does not reach it.
        detached: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ProcessStartError(
        `Cannot start ${command} (${program}): ${why}. Check that it is a program this ` +
          `system can run and that Sync may run programs (--allow-run)`,
      );
    }
    // Written down with its start time, so that a later sweep can tell it from a
    // process given the same pid after it.
    const [row] = await processTable([child.pid]).catch(() => []);
    const process = new SupervisedProcess(child, {
      owner,
      command,
      program,
      args,
      cwd,
      startedAt: new Date(this.#now()).toISOString(),
      stderrTailBytes: this.#limits.stderrTailBytes,
      stopGraceMs: this.#limits.stopGraceMs,
      onStderr: options.onStderr,
      onGone: (gone) => {
        this.#processes.delete(gone);
        this.#record.write(this.#notes()).catch(() => {/* swept at the next start */});
      },
    });
    this.#processes.add(process);
    this.#started.set(process, row?.started ?? "");
    if (this.#closed) {
      await process.stop();
      throw new ProcessStartError(`Cannot start ${command}: Sync is stopping`);
    }
    return process;
  }

  /** What is written down: every process not yet gone. */
  #notes(): GroupNote[] {
    return [...this.#processes].map((process) => ({
      pgid: process.pid,
      owner: process.owner,
      command: process.command,
      args: [...process.args],
      startedAt: process.startedAt,
      started: this.#started.get(process) ?? "",
    }));
  }
}
