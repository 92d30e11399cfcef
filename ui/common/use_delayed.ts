import { useEffect, useState } from "preact/hooks";

/**
 * True once `active` has stayed true for `delayMs`: what a spinner waits
 * for, so that an action that answers at once shows none.
 *
 * @param active Whether the action is under way.
 * @param delayMs How long it must last first.
 */
export function useDelayed(active: boolean, delayMs: number): boolean {
  const [late, setLate] = useState(false);
  useEffect(() => {
    if (!active) {
      setLate(false);
      return;
    }
    const timer = setTimeout(() => setLate(true), delayMs);
    return () => clearTimeout(timer);
  }, [active, delayMs]);
  return late;
}
