/**
 * What the last removal from the page did, kept while the app goes back to
 * the project's Extensions list, so that the list's detail column can say it.
 * It belongs to that page: moving anywhere else (another extension, Chat,
 * another project, the start page) lets it go, so it never greets the person
 * again on coming back.
 *
 * @module
 */
import { signal } from "@preact/signals";
import type { RemoveResponse } from "../../runtime/web/api/types.ts";
import { projectPath, route, routePath } from "./route.ts";

/** A removal made from an extension's page. */
export interface LastRemoval {
  /** The project folder, as the address gives it. */
  project: string;
  /** The package's name. */
  name: string;
  /** What the API answered. */
  answer: RemoveResponse;
}

/** The last removal, while the project's Extensions list is shown; null when none is to be told. */
export const lastRemoval = signal<LastRemoval | null>(null);

route.subscribe((now) => {
  const removal = lastRemoval.peek();
  if (removal && routePath(now) !== projectPath(removal.project)) lastRemoval.value = null;
});
