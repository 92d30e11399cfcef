/**
 * The user running Sync, as the system knows them: the owner of the files
 * this process makes. The installation folder, its token, its lock and its
 * socket must be this user's; one that belongs to another user is refused
 * before anything is changed in it or sent through it, since whatever it
 * holds, or whoever listens there, is that user's and not this person's.
 *
 * The user is learnt by making a file in the system's temporary folder and
 * reading who owns it: that is the owner every file Sync makes gets (the
 * effective user), and it needs no permission beyond the writing every
 * command of Sync already has (`Deno.uid()` would need `--allow-sys`).
 *
 * @module
 */
import { UnsafeFileError } from "../errors.ts";

/** The user, learnt once per process: it does not change while the process runs. */
let learnt: Promise<number | null> | undefined;

/**
 * The id of the user running Sync; null where the system has no owners of
 * files (Windows), and so nothing to compare with.
 */
export function thisUserId(): Promise<number | null> {
  learnt ??= learnUserId().catch((error) => {
    // A failure (a full temporary folder) is not kept: the next call tries again.
    learnt = undefined;
    throw error;
  });
  return learnt;
}

/** Makes a file and reads its owner. */
async function learnUserId(): Promise<number | null> {
  const file = await Deno.makeTempFile({ prefix: "sync-user-" });
  try {
    return (await Deno.stat(file)).uid;
  } finally {
    await Deno.remove(file).catch(() => {/* the system's cleaning takes it */});
  }
}

/**
 * Refuses a file or folder that belongs to another user than the one running
 * Sync, before anything is done with it.
 *
 * @param path What was looked at, for the message.
 * @param info What `Deno.stat` or `Deno.lstat` found there.
 * @param next What the person can do about it, ending the message.
 * @throws {UnsafeFileError} naming the path and its owner when it is not this user's.
 */
export async function assertThisUsers(
  path: string,
  info: Deno.FileInfo,
  next: string,
): Promise<void> {
  if (info.uid === null) return;
  const me = await thisUserId();
  if (me === null || info.uid === me) return;
  throw new UnsafeFileError(`${path} belongs to another user (uid ${info.uid}); ${next}`);
}
