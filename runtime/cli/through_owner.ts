/**
 * One owner per installation, from the CLI's side. A command that touches
 * the installation runs in its owner:
 *
 * - while `sync serve` runs, the serve owns it, and the command is sent to
 *   its local API with the installation's token, over its socket in the
 *   installation folder, run there on the serve's host, and its lines
 *   streamed back (`serve_client.ts`). Only while the lock is held is the
 *   serve's note believed, and never is the token sent to its port;
 * - with no serve, this process owns the installation for the length of
 *   the command, by the same OS lock a serve holds, waiting its turn behind
 *   another command (saying so on stderr when the wait is long).
 *
 * So claims, rate limits and the clock are decided by one process, never by
 * two racing on SQLite. A second `sync serve` is refused with the URL of the
 * one running: a second app over the same installation would only forward
 * to the first, and a person is better served by one address.
 *
 * @module
 */
import { ConflictError } from "../errors.ts";
import {
  type InstallationOwnership,
  type OwnerNote,
  readInstallationOwner,
  readInstallationToken,
  tryOwnInstallation,
} from "../projects/mod.ts";
import type { CliIo } from "./io.ts";
import { sendToServe } from "./serve_client.ts";

/** How long a command waits for the installation before it says what it waits for. */
const WAIT_NOTICE_MS = 2_000;

/** The first pause between looks at a held installation; it grows to {@linkcode LONGEST_PAUSE_MS}. */
const FIRST_PAUSE_MS = 25;

/** The longest pause between looks. */
const LONGEST_PAUSE_MS = 250;

/** A command to run in the installation's owner. */
export interface OwnedCommand {
  /** The installation folder. */
  home: string;
  /** The command's name, such as `call`. */
  command: string;
  /** Every word after `sync`, as typed, to send to a serve. */
  args: readonly string[];
  /** The folder the person typed them in (absolute). */
  cwd: string;
  /** Where the command writes. */
  io: CliIo;
  /** The secret the person gave where they typed it, sent beside the words. */
  secret?: string;
}

/**
 * Runs a command in the installation's owner: sends it to the serve that
 * owns the installation, or else takes the installation for the length of
 * `run`, waiting its turn.
 *
 * @param command What to run, and where its lines go.
 * @param run Runs the command here, while this process owns the installation.
 * @returns The command's exit code, wherever it ran.
 * @throws {OwnerGoneError} when the serve stopped while it ran the command.
 * @throws {UnsafeFileError} when the token a serve needs can be read by other users, or the
 *   installation folder entered by them.
 */
export async function throughOwner(
  command: OwnedCommand,
  run: () => Promise<number>,
): Promise<number> {
  const { home, io } = command;
  const waiting = new Wait(command.command, io);
  for (;;) {
    const ownership = await tryOwnInstallation(home, command.command);
    if (ownership) {
      try {
        return await run();
      } finally {
        await ownership.release();
      }
    }
    // The lock is held: the note is its holder's (or about to be).
    const owner = await readInstallationOwner(home);
    if (owner?.command === "serve" && owner.socket !== undefined) {
      const token = await readInstallationToken(home);
      const code = await sendToServe(home, owner, token, {
        args: [...command.args],
        cwd: command.cwd,
        ...(command.secret === undefined ? {} : { secret: command.secret }),
      }, io);
      if (code !== null) return code;
    }
    await waiting.pause(owner);
  }
}

/**
 * Takes the installation for `sync serve`, for as long as it runs: waits its
 * turn behind a CLI command, and refuses when another serve owns it.
 *
 * @param home The installation folder.
 * @param io Where the wait is told.
 * @returns The ownership, to announce the port on and to release when the serve stops.
 * @throws {ConflictError} naming the running serve's URL when one owns the installation.
 */
export async function ownForServing(home: string, io: CliIo): Promise<InstallationOwnership> {
  const waiting = new Wait("serve", io);
  for (;;) {
    const ownership = await tryOwnInstallation(home, "serve");
    if (ownership) return ownership;
    const owner = await readInstallationOwner(home);
    if (owner?.command === "serve") {
      throw new ConflictError(
        owner.port === undefined
          ? `Another sync serve (pid ${owner.pid}) is starting for this installation; ` +
            `use that one, or stop it before starting another`
          : `Sync already serves this installation at ${await appUrl(home, owner.port)} ` +
            `(pid ${owner.pid}); open that, or stop it before starting another`,
      );
    }
    await waiting.pause(owner);
  }
}

/** The app's address with the token, as the running serve printed it; without it when unreadable. */
async function appUrl(home: string, port: number): Promise<string> {
  const url = `http://127.0.0.1:${port}/`;
  try {
    return `${url}?token=${await readInstallationToken(home)}`;
  } catch {
    return url;
  }
}

/** Pauses between looks at a held installation, growing, and says once what it waits for. */
class Wait {
  #command: string;
  #io: CliIo;
  #since = Date.now();
  #pauseMs = FIRST_PAUSE_MS;
  #told = false;

  constructor(command: string, io: CliIo) {
    this.#command = command;
    this.#io = io;
  }

  async pause(owner: OwnerNote | null): Promise<void> {
    if (!this.#told && Date.now() - this.#since >= WAIT_NOTICE_MS) {
      this.#told = true;
      this.#io.err(`sync ${this.#command}: waiting for ${waitedFor(owner)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, this.#pauseMs));
    this.#pauseMs = Math.min(LONGEST_PAUSE_MS, Math.ceil(this.#pauseMs * 1.5));
  }
}

/** What a waiting command waits for, in the person's words. */
function waitedFor(owner: OwnerNote | null): string {
  if (!owner) return "another sync process to finish with this installation";
  if (owner.command === "serve") return `sync serve (pid ${owner.pid}) to start answering`;
  return `sync ${owner.command} (pid ${owner.pid}) to finish with this installation`;
}
