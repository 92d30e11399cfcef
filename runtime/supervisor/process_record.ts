/**
 * The groups a supervisor started, written down so that the next Sync can
 * stop them if this one dies without stopping them itself (`kill -9`, a
 * power cut of the process).
 *
 * Each supervisor writes its own file in the folder, named after its
 * process, so two never overwrite each other's; it removes the file when it
 * has no group left. A file is always written whole under another name and
 * renamed, so a reader never sees half of one.
 *
 * @module
 */
import { join } from "node:path";
import { processTable } from "./process_table.ts";

/** One process group a supervisor started. */
export interface GroupNote {
  /** The group, which is also the pid of the process started in it. */
  pgid: number;
  /** Who started it: an extension's id, or what an agent session is for. */
  owner: string;
  /** The program as it was asked for (`codex-acp`). */
  command: string;
  /** Its arguments. */
  args: string[];
  /** When it was started, as an ISO 8601 time. */
  startedAt: string;
  /**
   * When the system says the process started (`ps`'s `lstart`, UTC); a
   * sweep stops the group only if its pid still has this start time, so a
   * later process that was given the same pid is left alone.
   */
  started: string;
}

/** What one supervisor's file holds. */
export interface SupervisorNote {
  /** The supervising process (Sync itself). */
  supervisor: {
    /** Its pid. */
    pid: number;
    /** When it started, as `ps` says, to tell it from a later process with its pid. */
    started: string;
  };
  /** The groups it started that are not yet gone. */
  groups: GroupNote[];
}

/** One supervisor's file, kept up to date with its groups. */
export class ProcessRecord {
  /** The file this supervisor writes. */
  readonly file: string;
  #folder: string;
  #supervisor: Promise<SupervisorNote["supervisor"]> | undefined;
  #writing: Promise<void> = Promise.resolve();
  #removed = false;

  /**
   * A record in `folder`; nothing is written until {@linkcode ProcessRecord.write}.
   *
   * @param folder The folder of the supervisors' files, such as `$SYNC_HOME/processes`.
   */
  constructor(folder: string) {
    this.#folder = folder;
    this.file = join(folder, `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}.json`);
  }

  /**
   * Writes `groups` as the whole record, after any write before it; with
   * no group, the file is removed.
   *
   * @param groups Every group of this supervisor not yet gone.
   */
  write(groups: readonly GroupNote[]): Promise<void> {
    const snapshot = groups.map((group) => ({ ...group, args: [...group.args] }));
    const next = this.#writing.then(() => this.#writeNow(snapshot));
    // A failed write does not stop the ones after it; the caller hears of it.
    this.#writing = next.catch(() => {});
    return next;
  }

  /** Resolves when every write asked for so far is done. */
  settled(): Promise<void> {
    return this.#writing;
  }

  /**
   * Removes the file at once, synchronously, for the moment Sync exits:
   * every group has just been killed, so there is nothing left to sweep.
   */
  removeNow(): void {
    this.#removed = true;
    try {
      Deno.removeSync(this.file);
    } catch { /* never written, or already removed */ }
  }

  async #writeNow(groups: GroupNote[]): Promise<void> {
    if (this.#removed) return;
    if (groups.length === 0) {
      await Deno.remove(this.file).catch(() => {/* never written */});
      return;
    }
    this.#supervisor ??= supervisorIdentity();
    const note: SupervisorNote = { supervisor: await this.#supervisor, groups };
    await Deno.mkdir(this.#folder, { recursive: true });
    const temp = `${this.file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    await Deno.writeTextFile(temp, JSON.stringify(note, null, 2) + "\n", { mode: 0o600 });
    await Deno.rename(temp, this.file);
  }
}

/** This process's pid and start time. */
async function supervisorIdentity(): Promise<SupervisorNote["supervisor"]> {
  const [row] = await processTable([Deno.pid]);
  return { pid: Deno.pid, started: row?.started ?? "" };
}

/** One supervisor's file as read back. */
export interface ReadRecord {
  /** The file. */
  file: string;
  /** What it holds, or `undefined` when it cannot be read as a record. */
  note: SupervisorNote | undefined;
}

/**
 * Every supervisor's file in `folder`.
 *
 * @param folder The folder of the supervisors' files.
 */
export async function readProcessRecords(folder: string): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const file = join(folder, entry.name);
    let note: SupervisorNote | undefined;
    try {
      note = asSupervisorNote(JSON.parse(await Deno.readTextFile(file)));
    } catch {
      note = undefined;
    }
    records.push({ file, note });
  }
  return records;
}

/** `value` if it has the shape of a record, else `undefined`. */
function asSupervisorNote(value: unknown): SupervisorNote | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { supervisor, groups } = value as Partial<SupervisorNote>;
  if (
    typeof supervisor?.pid !== "number" || typeof supervisor.started !== "string" ||
    !Array.isArray(groups)
  ) return undefined;
  const valid = groups.filter((group) =>
    Number.isInteger(group?.pgid) && group.pgid > 1 && typeof group.started === "string" &&
    typeof group.owner === "string" && typeof group.command === "string"
  );
  return { supervisor, groups: valid };
}
