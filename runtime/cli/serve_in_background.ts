/**
 * Starting `sync serve` in the background, for a long-lived client (the
 * stdio MCP server) that needs an owner to talk to and must never become one
 * itself: an owner kept for a client's whole life would keep the clock, the
 * app and every CLI command waiting.
 *
 * @module
 */
import { OwnerGoneError } from "../errors.ts";
import { findInstallationOwner, type OwnerNote, readInstallationToken } from "../projects/mod.ts";
import type { CliIo } from "./io.ts";

/** The entry point a background serve runs. */
const MAIN = new URL("../../main.ts", import.meta.url);

/** The permission flags of `deno task serve`, which a background serve runs with too (a test holds the two together). */
export const SERVE_FLAGS: readonly string[] = [
  "--unstable-kv",
  "--unstable-worker-options",
  "--unstable-no-legacy-abort",
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
];

/** How long a serve may take to start answering. */
const START_MS = 30_000;

/**
 * The serve that owns the installation, started in the background first when
 * none runs. A serve started here outlives the caller, in a process group of
 * its own, its output discarded; it is stopped like any serve (`kill <pid>`).
 * What the caller says of it (on stderr) is its pid and, once it answers, the
 * app's address with the token, as `serve` prints it: its own output goes
 * nowhere.
 *
 * A serve's note is believed only while the owner's lock is held: one that a
 * killed serve left names a port anybody may have taken since, so it is
 * removed, a serve started in its place, and the caller says so. The caller
 * reaches the serve over its socket in the installation folder, never on the
 * port (`ownerSocketClient`).
 *
 * @param home The installation folder.
 * @param io Where the caller says it started one, and where the app is (stderr).
 * @param command The caller's name, for what it says.
 * @returns The owner's note, once it says the serve answers on its socket.
 * @throws {OwnerGoneError} when the serve started here stops before it answers.
 */
export async function serveOwner(home: string, io: CliIo, command: string): Promise<OwnerNote> {
  const found = await findInstallationOwner(home);
  if (answering(found.note)) return found.note!;
  let child: Deno.ChildProcess | undefined;
  if (found.note?.command !== "serve") {
    // By name, as `deno task mcp`'s narrow --allow-run=deno permits.
    child = new Deno.Command("deno", {
      args: ["run", ...SERVE_FLAGS, MAIN.pathname, "serve"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    const none = found.left?.command === "serve"
      ? `the sync serve that owned ${home} (pid ${found.left.pid}) is gone, its note left behind`
      : `no sync serve was running for ${home}`;
    io.err(
      `sync ${command}: ${none}; started one in the background (pid ${child.pid}). ` +
        `Stop it with kill ${child.pid}.`,
    );
  }
  let exited = false;
  child?.status.then(() => exited = true);
  const until = Date.now() + START_MS;
  while (Date.now() < until) {
    const { note } = await findInstallationOwner(home);
    if (answering(note)) {
      if (child && note!.port !== undefined) await sayWhereServing(home, note!.port, io, command);
      return note!;
    }
    // A serve that stopped at once lost to another starting at the same moment, or failed.
    if (exited && note?.command !== "serve") {
      throw new OwnerGoneError(
        `The sync serve started for ${home} stopped before it answered; run deno task serve ` +
          `to see why`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new OwnerGoneError(
    `No sync serve answered for ${home} within ${
      START_MS / 1000
    } s; run deno task serve to see why`,
  );
}

/** True when the note, read while the lock is held, says a serve answers on its socket. */
function answering(note: OwnerNote | null): boolean {
  return note?.command === "serve" && note.socket !== undefined;
}

/**
 * Says where the app of a serve started in the background is, in the line
 * `serve` prints (its own output goes nowhere), so the person can open it.
 */
async function sayWhereServing(
  home: string,
  port: number,
  io: CliIo,
  command: string,
): Promise<void> {
  let token: string;
  try {
    token = await readInstallationToken(home);
  } catch {
    return; // A serve writes its token before it listens; the caller reads it again anyway.
  }
  io.err(`sync ${command}: Sync is serving at http://127.0.0.1:${port}/?token=${token}`);
}
