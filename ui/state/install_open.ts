/**
 * Whether the install dialog of the project's window is open, so that a
 * button other than the Extensions list's Install (the empty list's) opens
 * the same dialog.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** True while the install dialog is open. */
export const installOpen = signal(false);
