/**
 * The owner's socket: a serve that owns the installation answers its own
 * clients (the CLI, `sync mcp`) on a Unix domain socket inside the
 * installation folder, `<home>/owner.sock`, and the browser on its TCP port.
 *
 * The folder and the socket belong to the user running Sync, and only this
 * user may enter the folder (mode 700), so only this user can listen there or
 * reach what listens there: a client that sends the token and a project's
 * path over the socket sends them to a process of this person.
 * A TCP port is not that: once a serve dies, any user of the machine may take
 * its port, so no client sends the token or a project's path to one.
 *
 * @module
 */
import { join } from "../internal/posix_path.ts";
import { ConflictError, UnsafeFileError } from "../errors.ts";
import {
  closeAll,
  type OwnerSocketAnswer,
  type OwnerSocketRequest,
  socketRequest,
} from "./_socket_request.ts";
import { assertThisUsers } from "./this_user.ts";

/** The socket's name in the installation folder, kept short for the system's limit on socket paths. */
const SOCKET_NAME = "owner.sock";

/** The URL a request over the socket is addressed to: the socket, not the name, says where it goes. */
export const OWNER_SOCKET_ORIGIN = "http://localhost";

/**
 * The path of the socket the installation's serve answers its clients on.
 *
 * @param home The installation folder.
 */
export function ownerSocketPath(home: string): string {
  return join(home, SOCKET_NAME);
}

/**
 * The longest path, in bytes, the system lets a socket have: `sun_path` holds
 * 108 bytes on Linux and 104 on macOS and the BSDs, the last one a NUL.
 */
const MAX_SOCKET_PATH_BYTES = Deno.build.os === "linux" ? 107 : 103;

/**
 * Refuses an installation folder whose socket path the system cannot take,
 * before a serve takes the installation, opens it or says where it serves.
 *
 * @param home The installation folder.
 * @throws {ConflictError} naming the path's length and what to do.
 */
export function assertOwnerSocketFits(home: string): void {
  const path = ownerSocketPath(home);
  const bytes = new TextEncoder().encode(path).length;
  if (bytes <= MAX_SOCKET_PATH_BYTES) return;
  throw new ConflictError(
    `Cannot serve the installation in ${home}: sync serve answers the CLI on the socket ${path}, ` +
      `whose path is ${bytes} bytes, longer than this system allows for a socket ` +
      `(${MAX_SOCKET_PATH_BYTES}); set SYNC_HOME to a shorter folder (moving the installation there)`,
  );
}

/**
 * Removes the socket a killed serve left, before a serve listens there. Call
 * it only while owning the installation: then no serve answers on it.
 *
 * @param path The socket's path, {@linkcode ownerSocketPath}.
 * @throws {ConflictError} when something other than a socket is there.
 */
export async function removeLeftOwnerSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isSocket) {
    throw new ConflictError(
      `${path} is where sync serve listens for the CLI, but something other than a socket is ` +
        `there; move it away and start sync serve again`,
    );
  }
  await Deno.remove(path);
}

export type { OwnerSocketAnswer, OwnerSocketRequest };

/**
 * Requests that reach the owner over its socket, having made sure the
 * socket is this person's: the folder and the socket belong to the user
 * running Sync, and the folder is closed to other users. Requests go to
 * {@linkcode OWNER_SOCKET_ORIGIN}, each over a connection of its own
 * (`_socket_request.ts`).
 */
export interface OwnerSocketClient {
  /**
   * Sends a request over the socket, whatever the URL's host says.
   *
   * @throws {TypeError} when the socket cannot be reached or answers no HTTP.
   */
  request(url: URL, request: OwnerSocketRequest): Promise<OwnerSocketAnswer>;
  /** Closes the connections under way: answers still streaming end with an error. */
  close(): void;
}

/**
 * A client of the serve's socket.
 *
 * @param home The installation folder.
 * @throws {UnsafeFileError} when the folder or the socket belongs to another user, the folder is
 *   open to other users, or something other than a socket is there.
 */
export async function ownerSocketClient(home: string): Promise<OwnerSocketClient> {
  const path = await thisPersonsOwnerSocket(home);
  const open = new Set<Deno.Conn>();
  return {
    request: (url, request) => socketRequest(path, url, request, open),
    close: () => closeAll(open),
  };
}

/**
 * The path of the owner's socket, once it is found to be this person's: the
 * folder and the socket (when there is one) belong to the user running
 * Sync, and the folder is closed to other users.
 *
 * @param home The installation folder.
 * @throws {UnsafeFileError} when the folder or the socket belongs to another user, the folder is
 *   open to other users, or something other than a socket is there.
 */
export async function thisPersonsOwnerSocket(home: string): Promise<string> {
  const path = ownerSocketPath(home);
  const [folder, socket] = await Promise.all([Deno.stat(home), Deno.lstat(path).catch(() => null)]);
  // Another user's folder, or socket, is that user's listener: nothing is sent to it.
  await assertThisUsers(home, folder, "set SYNC_HOME to a folder of your own");
  // Where the system has no modes or owners there is nothing to check.
  if (folder.mode !== null && (folder.mode & 0o077) !== 0) {
    throw new UnsafeFileError(
      `The installation folder ${home} can be entered by other users (mode ${
        (folder.mode & 0o777).toString(8)
      }), so its socket may not be this person's; run chmod 700 ${home}`,
    );
  }
  if (socket) {
    await assertThisUsers(
      path,
      socket,
      "it is not your sync serve's, so nothing is sent to it: remove it, and start sync serve again",
    );
  }
  if (socket && !socket.isSocket) {
    throw new UnsafeFileError(
      `${path} is not a socket; stop sync serve, remove it, and start sync serve again`,
    );
  }
  return path;
}
