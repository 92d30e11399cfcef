/**
 * Sends a signal to a whole process group.
 *
 * @module
 */

/**
 * Sends `signal` to every process of group `pgid` (`kill(-pgid, signal)`).
 *
 * @param pgid The process group; its leader's pid.
 * @param signal Such as `SIGTERM`.
 * @returns False when the group has no process left to signal.
 */
export function signalGroup(pgid: number, signal: Deno.Signal): boolean {
  // A pgid of 0 or 1 would signal the caller's own group or every process.
  if (!Number.isInteger(pgid) || pgid <= 1) {
    throw new RangeError(`Refusing to signal process group ${pgid}`);
  }
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch (error) {
    // ESRCH: the group is empty. EPERM: its processes are no longer ours to signal.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return false;
    }
    throw error;
  }
}
