/**
 * An element that the address's fragment names (`#receipt-<id>`, from a
 * record's "Written by") is scrolled to once it is drawn: the app draws its
 * pages after they load, too late for the browser's own scroll.
 *
 * @module
 */
import type { RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";

/**
 * A ref for an element with id `id`: when the address's fragment names it,
 * it is scrolled into view and marked with `data-target` when first drawn.
 *
 * @param id The element's id.
 */
export function useHashTarget<T extends HTMLElement>(id: string): RefObject<T> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element || decodeURIComponent(location.hash.slice(1)) !== id) return;
    element.dataset.target = "";
    element.scrollIntoView({ block: "center" });
  }, [id]);
  return ref;
}
