/**
 * What the last Open on the start page did, kept while the app goes on to
 * the project's window, so that the window can say what the project's
 * `opened` handlers did.
 *
 * @module
 */
import { signal } from "@preact/signals";
import type { OpenProjectResponse } from "../../runtime/web/api/types.ts";

/** An opening made from the start page. */
export interface LastOpening {
  /** The project folder, as the window's address gives it. */
  project: string;
  /** What the API answered. */
  answer: OpenProjectResponse;
}

/** The last opening, until it is dismissed or another project is opened; null when none is to be told. */
export const lastOpening = signal<LastOpening | null>(null);
