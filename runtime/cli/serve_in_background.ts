/**
 * Starting `sync serve` in the background, for a long-lived client (the
 * stdio MCP server) that needs an owner to talk to and must never become one
 * itself: an owner kept for a client's whole life would keep the clock, the
 * app and every CLI command waiting.
 *
 * @module
 */
import { OwnerGoneError } from "../errors.ts";
import { type OwnerNote, readInstallationOwner, readInstallationToken } from "../projects/mod.ts";
import type { CliIo } from "./io.ts";

/** The entry point a background serve runs. */
const MAIN = new URL("../../main.ts", import.meta.url);

/** The permission flags of `deno task serve`, which a background serve runs with too (a test holds the two together). */
export const SERVE_FLAGS: readonly string[] = [
  "--unstable-kv",
  "--unstable-worker-options",
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
 * @param home The installation folder.
 * @param io Where the caller says it started one, and where the app is (stderr).
 * @param command The caller's name, for what it says.
 * @returns The owner's note, with its port.
 * @throws {OwnerGoneError} when the serve started here stops before it answers.
 */
export async function serveOwner(home: string, io: CliIo, command: string): Promise<OwnerNote> {
  let running = await readInstallationOwner(home);
  // A serve that was killed leaves its note behind: a note is believed while its port answers.
  const stale = running?.command === "serve" && running.port !== undefined &&
      !await answers(running.port)
    ? running
    : null;
  if (stale) running = null;
  else if (running?.command === "serve" && running.port !== undefined) return running;
  let child: Deno.ChildProcess | undefined;
  if (running?.command !== "serve") {
    // By name, as `deno task mcp`'s narrow --allow-run=deno permits.
    child = new Deno.Command("deno", {
      args: ["run", ...SERVE_FLAGS, MAIN.pathname, "serve"],
      stdin: "null",
      stdout: "null",
      stderr: "null",
      detached: true,
    }).spawn();
    child.unref();
    io.err(
      `sync ${command}: no sync serve was running for ${home}; started one in the background ` +
        `(pid ${child.pid}). Stop it with kill ${child.pid}.`,
    );
  }
  let exited = false;
  child?.status.then(() => exited = true);
  const until = Date.now() + START_MS;
  while (Date.now() < until) {
    const owner = await readInstallationOwner(home);
    const left = stale !== null && owner?.pid === stale.pid && owner?.since === stale.since;
    // A note taken for stale is believed again once its port answers: that
    // serve was only slow to answer, and the one started here gives way to it.
    if (
      owner?.command === "serve" && owner.port !== undefined &&
      (!left || await answers(owner.port))
    ) {
      if (child) await sayWhereServing(home, owner.port, io, command);
      return owner;
    }
    // A serve that stopped at once lost to another starting at the same moment, or failed.
    if (exited && (owner?.command !== "serve" || left)) {
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

/** True when something answers HTTP on 127.0.0.1 at `port`. */
async function answers(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      signal: AbortSignal.timeout(2_000),
    });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
