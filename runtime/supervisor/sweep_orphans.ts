/**
 * Stops the process groups a Sync that died left behind.
 *
 * @module
 */
import { readProcessRecords } from "./process_record.ts";
import { type ProcessRow, processTable } from "./process_table.ts";
import { signalGroup } from "./signal_group.ts";

/** A group a sweep found left behind, and what it did about it. */
export interface SweptGroup {
  /** The group. */
  pgid: number;
  /** Who had started it. */
  owner: string;
  /** Its program as it was asked for. */
  command: string;
  /** Processes of the group it sent SIGKILL to (none when every one had already gone). */
  killed: number;
}

/** Options for {@linkcode sweepOrphans}. */
export interface SweepOrphansOptions {
  /** A record file to leave alone: the sweeping supervisor's own. */
  except?: string;
}

/**
 * Kills the groups written down by supervisors whose process is gone, and
 * removes their files. A record whose supervisor still runs (same pid, same
 * start time) is left alone.
 *
 * A group is killed only while it can be told to be the one written down:
 * its first process still has the recorded pid and start time, so a later
 * process given the same pid is not touched. When that first process is
 * gone but others of its group remain (a helper it started), those are
 * killed if they started no earlier than it did: the system does not give a
 * pid out again while a group of that number has a process in it, so they
 * are its descendants.
 *
 * @param folder The folder of the supervisors' files.
 * @param options Which file is the sweeper's own.
 * @returns The groups found left behind.
 * @throws {ProcessStartError} when `ps` is not on PATH.
 */
export async function sweepOrphans(
  folder: string,
  options: SweepOrphansOptions = {},
): Promise<SweptGroup[]> {
  const records = (await readProcessRecords(folder)).filter((r) => r.file !== options.except);
  if (records.length === 0) return [];
  const table = await processTable();
  const byPid = new Map(table.map((row) => [row.pid, row]));
  const swept: SweptGroup[] = [];
  for (const { file, note } of records) {
    if (note) {
      const supervisor = byPid.get(note.supervisor.pid);
      if (supervisor && !supervisor.zombie && supervisor.started === note.supervisor.started) {
        continue;
      }
      for (const group of note.groups) {
        swept.push({
          pgid: group.pgid,
          owner: group.owner,
          command: group.command,
          killed: killLeftGroup(group.pgid, group.started, table),
        });
      }
    }
    await Deno.remove(file).catch(() => {/* another sweep took it */});
  }
  return swept;
}

/** Kills what is left of group `pgid` if it is still the one started at `started`; answers how many. */
function killLeftGroup(pgid: number, started: string, table: readonly ProcessRow[]): number {
  const members = table.filter((row) => row.pgid === pgid && !row.zombie);
  const leader = table.find((row) => row.pid === pgid);
  if (leader) {
    // The pid is in use: by the process started (then kill its group), or by a later one.
    if (leader.started !== started || started === "") return 0;
    signalGroup(pgid, "SIGKILL");
    if (leader.pgid !== pgid && !leader.zombie) kill(pgid);
    return members.length + (leader.pgid !== pgid && !leader.zombie ? 1 : 0);
  }
  const since = startTime(started);
  if (since === undefined) return 0;
  let killed = 0;
  for (const member of members) {
    const at = startTime(member.started);
    if (at !== undefined && at >= since && kill(member.pid)) killed++;
  }
  return killed;
}

/** Sends SIGKILL to one process; false when it had gone. */
function kill(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/** A start time as `ps` writes it, in ms since the epoch. */
function startTime(started: string): number | undefined {
  const at = Date.parse(`${started} UTC`);
  return Number.isNaN(at) ? undefined : at;
}
