/**
 * What the last removal from the page did, kept while the app goes back to
 * the project's Extensions list, so that the list's detail column can say it.
 *
 * @module
 */
import { signal } from "@preact/signals";
import type { RemoveResponse } from "../../runtime/web/api/types.ts";

/** A removal made from an extension's page. */
export interface LastRemoval {
  /** The project folder, as the address gives it. */
  project: string;
  /** The package's name. */
  name: string;
  /** What the API answered. */
  answer: RemoveResponse;
}

/** The last removal, until another extension's page is opened; null when none is to be told. */
export const lastRemoval = signal<LastRemoval | null>(null);
