import { useState } from "preact/hooks";
import type {
  ReceiptConsole as KeptLines,
  ReceiptConsoleResponse,
  ReceiptLine,
} from "../../runtime/web/api/types.ts";
import { getJson, messageOf } from "../api/client.ts";

/** Props of {@linkcode ReceiptConsole}. */
export interface ReceiptConsoleProps {
  /** The receipt; shows nothing when no console line is kept with it. */
  receipt: ReceiptLine;
}

/** What the disclosure holds. */
type Shown =
  | { state: "closed" }
  | { state: "reading" }
  | { state: "read"; kept: KeptLines | null }
  | { state: "error"; message: string };

/**
 * The console lines a call's handler wrote, kept with its receipt, behind a
 * disclosure on the receipt's row, as an editor's output channel shows a
 * run's output: read when first opened, each line as the handler wrote it
 * (its level in front when it is not `log`), and how many were not kept.
 */
export function ReceiptConsole(props: ReceiptConsoleProps) {
  const { receipt } = props;
  const [shown, setShown] = useState<Shown>({ state: "closed" });
  const count = receipt.consoleLines ?? 0;
  if (count === 0) return null;
  const panelId = `console-${receipt.id}`;
  const open = shown.state !== "closed";
  const toggle = async () => {
    if (open) {
      setShown({ state: "closed" });
      return;
    }
    setShown({ state: "reading" });
    try {
      const answer = await getJson<ReceiptConsoleResponse>(
        `/api/extensions/${encodeURIComponent(receipt.packageId)}/receipts/${
          encodeURIComponent(receipt.id)
        }/console`,
        { project: receipt.project },
      );
      setShown({ state: "read", kept: answer.console });
    } catch (thrown) {
      setShown({ state: "error", message: messageOf(thrown) });
    }
  };
  return (
    <div class="receipt-console">
      <button
        type="button"
        class="disclosure"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={toggle}
      >
        <span class="disclosure-mark" aria-hidden="true" />
        Console, {count === 1 ? "1 line" : `${count} lines`}
      </button>
      <div id={panelId} hidden={!open}>
        {shown.state === "reading" && <p class="tertiary">Reading…</p>}
        {shown.state === "error" && (
          <p class="error">Cannot read its console lines: {shown.message}</p>
        )}
        {shown.state === "read" && shown.kept === null && (
          <p class="tertiary">Its console lines are no longer kept.</p>
        )}
        {shown.state === "read" && shown.kept !== null && (
          <>
            <pre
              class="console-lines"
              tabIndex={0}
              aria-label={`Console lines of ${receipt.handler}`}
            >
              {shown.kept.lines.map((line, index) => (
                <span key={index} class={`console-line console-${line.level}`}>
                  {line.level === "log" ? "" : `${line.level}: `}
                  {line.text}
                  {"\n"}
                </span>
              ))}
            </pre>
            {shown.kept.leftOut > 0 && (
              <p class="tertiary">
                {shown.kept.atLeast ? "At least " : ""}
                {shown.kept.leftOut === 1
                  ? "1 more line was written and not kept."
                  : `${shown.kept.leftOut} more lines were written and not kept.`}
              </p>
            )}
          </>
        )}
      </div>
    </div>
  );
}
