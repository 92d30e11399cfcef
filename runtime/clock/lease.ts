/**
 * The clock lease: which process runs the clock for an installation. Two
 * `sync serve` processes on one `SYNC_HOME` would otherwise both tick, and
 * "one handler at a time for the machine" would hold only inside each. The
 * holder renews the lease at every look; a holder that stopped without
 * letting go loses it once it runs out.
 *
 * @module
 */
import { clockLeaseKey } from "./keys.ts";

/** Who holds the clock, and until when. */
export interface ClockLease {
  /** An id the holding process chose for itself. */
  holder: string;
  /** When the lease runs out unless renewed, in ms. */
  until: number;
}

/** Options for {@linkcode holdClockLease}. */
export interface HoldClockLeaseOptions {
  /** The clock's time, in ms. */
  now: number;
  /** How long the lease lasts unless renewed, in ms. */
  forMs: number;
}

/**
 * Takes the clock lease, or renews it when `holder` already has it.
 *
 * @returns True when `holder` holds the lease now; false while another holds it.
 */
export async function holdClockLease(
  kv: Deno.Kv,
  holder: string,
  options: HoldClockLeaseOptions,
): Promise<boolean> {
  const current = await kv.get<ClockLease>(clockLeaseKey());
  const lease = current.value;
  if (lease && lease.holder !== holder && lease.until > options.now) return false;
  const next: ClockLease = { holder, until: options.now + options.forMs };
  const result = await kv.atomic().check(current).set(clockLeaseKey(), next).commit();
  return result.ok;
}

/** Lets the lease go, if `holder` has it, so another process may take it at once. */
export async function releaseClockLease(kv: Deno.Kv, holder: string): Promise<void> {
  const current = await kv.get<ClockLease>(clockLeaseKey());
  if (current.value?.holder !== holder) return;
  await kv.atomic().check(current).delete(clockLeaseKey()).commit();
}

/**
 * Clears the lease whoever holds it. For a process that knows the holder is
 * gone: `sync serve` owns the installation (an OS lock on `<home>/owner.lock`)
 * while it runs, and owning it means every earlier serve has stopped or died.
 *
 * @param kv The installation's KV.
 */
export async function clearClockLease(kv: Deno.Kv): Promise<void> {
  await kv.delete(clockLeaseKey());
}

/** Who holds the lease, or null when nobody does. */
export async function readClockLease(kv: Deno.Kv): Promise<ClockLease | null> {
  return (await kv.get<ClockLease>(clockLeaseKey())).value;
}
