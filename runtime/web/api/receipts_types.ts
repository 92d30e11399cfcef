/**
 * The shape of the project's receipts route (`runtime/web/api/receipts.ts`),
 * for the browser app to import type-only. A receipt's handler name and error
 * are a package's text: show them as text, never as HTML.
 *
 * @module
 */
import type { Receipt } from "../../types.ts";

/**
 * `GET /api/receipts?project=…[&id=…][&outcome=…][&occasion=…][&after=…][&limit=…]`:
 * the project's newest receipts that match, newest first.
 */
export interface ProjectReceiptsResponse {
  /** The project's resolved path. */
  project: string;
  /** The newest that match, newest first, at most `limit`. */
  receipts: Receipt[];
  /** How many more matched among the receipts read, past `limit`. */
  more: number;
  /** True when more receipts were kept than one request reads: older ones may match too. */
  partial: boolean;
}
