/**
 * A notice that passes by itself a short while after it is shown, but never
 * while the person is with it: its time stops while the pointer is over it
 * or the focus is in it, and starts again when they leave.
 *
 * @module
 */
import type { RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** How long a notice stays once nobody is with it, in ms. */
export const PASSING_MS = 20_000;

/**
 * Calls `gone` once the element has been left alone for `ms`.
 *
 * @param gone What makes the notice go.
 * @param ms How long it stays once nobody is with it.
 * @returns The ref to put on the notice's element.
 */
export function usePassing<T extends HTMLElement>(
  gone: () => void,
  ms: number = PASSING_MS,
): RefObject<T> {
  const ref = useRef<T>(null);
  const said = useRef(gone);
  said.current = gone;
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pointer = false;
    const start = () => {
      clearTimeout(timer);
      const focused = element.contains(element.ownerDocument.activeElement);
      if (!pointer && !focused) timer = setTimeout(() => said.current(), ms);
    };
    const hold = () => clearTimeout(timer);
    const enter = () => {
      pointer = true;
      hold();
    };
    const leave = () => {
      pointer = false;
      start();
    };
    // Focus moving out is known once it has landed elsewhere.
    const out = () => {
      clearTimeout(timer);
      timer = setTimeout(start, 0);
    };
    element.addEventListener("pointerenter", enter);
    element.addEventListener("pointerleave", leave);
    element.addEventListener("focusin", hold);
    element.addEventListener("focusout", out);
    start();
    return () => {
      clearTimeout(timer);
      element.removeEventListener("pointerenter", enter);
      element.removeEventListener("pointerleave", leave);
      element.removeEventListener("focusin", hold);
      element.removeEventListener("focusout", out);
    };
  }, [ms]);
  return ref;
}
