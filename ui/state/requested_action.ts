/**
 * An action asked for from outside the component that owns it: the command
 * palette asks for the install dialog or a new conversation, and the list
 * that owns the dialog opens it once its area is shown, then clears the
 * request.
 *
 * @module
 */
import { signal } from "@preact/signals";

/** An action a list column's dialog performs. */
export type RequestedAction = "install" | "new-conversation";

/** The action asked for and not yet taken; null when none is. */
export const requestedAction = signal<RequestedAction | null>(null);
