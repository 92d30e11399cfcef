import { useEffect, useRef, useState } from "preact/hooks";
import type { HandlerLine, ReceiptLine, RunResponse } from "../../runtime/web/api/types.ts";
import { messageOf, notAnswering, send } from "../api/client.ts";
import { connected } from "../state/connection.ts";
import { jsonProblem } from "./json_problem.ts";
import { outcomeWords } from "./page_words.ts";
import { PayloadEditor } from "./payload_editor.tsx";
import { fieldsLine, payloadMisfits, payloadTemplate } from "./payload_fit.ts";
import { RunResult } from "./run_result.tsx";

/** Props of {@linkcode RunNow}. */
export interface RunNowProps {
  /** The package id. */
  id: string;
  /** The project folder. */
  project: string;
  /** The handler, as the page read it. */
  handler: HandlerLine;
  /** Why nothing of the package can run here now (not approved); null when it can. */
  blocked: string | null;
  /** Told the receipt a run left, so the receipts below show it at once. */
  onReceipt: (receipt: ReceiptLine) => void;
}

/** Where a run has got to. */
type Run =
  | { state: "idle" }
  | { state: "running"; since: number; stop: AbortController }
  | { state: "done"; result: RunResponse }
  | { state: "refused"; message: string }
  | { state: "stopped" };

/**
 * Run now, on a handler's row: a person calls the handler as `sync call`
 * does, with a payload when it takes one, and sees how it ended, what it
 * answered and a link to its receipt. A handler that declares its input opens
 * the payload editor first, started from its required fields; any other runs
 * at once, and "With a payload…" opens the editor for it too. The payload is
 * checked before it is sent: where the JSON is wrong, and which declared
 * field does not fit. A handler that cannot run here says why beside the
 * button, which stays in the tab order.
 */
export function RunNow(props: RunNowProps) {
  const { handler } = props;
  const declared = handler.input;
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(() => declared ? payloadTemplate(declared) : "");
  const [checked, setChecked] = useState(false);
  const [run, setRun] = useState<Run>({ state: "idle" });
  const [seconds, setSeconds] = useState(0);
  const editorOpened = useRef(false);
  const runButtonRef = useRef<HTMLButtonElement>(null);
  const name = handler.name;
  const why = handler.runRefusal ?? props.blocked;
  const reasonId = `run-why-${name}`;
  const panelId = `run-panel-${name}`;

  // While Sync does not answer, nothing can run: the buttons are held, as Send is.
  const off = !connected.value;
  const trimmed = text.trim();
  const problem = checked && trimmed !== "" ? jsonProblem(text) : null;
  const misfits = checked && declared && trimmed !== "" && problem === null
    ? payloadMisfits(JSON.parse(text), declared)
    : [];

  // The seconds a run has taken, counted here: the server says nothing until it ends.
  useEffect(() => {
    if (run.state !== "running") return;
    setSeconds(0);
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - run.since) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [run.state]);

  // A run Sync did not answer can be tried again once it answers: its error line goes.
  useEffect(() => {
    if (!off && run.state === "refused" && notAnswering(run.message)) setRun({ state: "idle" });
  }, [off]);

  // The editor, once opened, takes the focus.
  useEffect(() => {
    if (!editing || editorOpened.current) return;
    editorOpened.current = true;
    document.getElementById(`payload-${name}`)?.focus();
  }, [editing]);

  const start = async (withPayload: boolean) => {
    if (why || off || run.state === "running") return;
    let payload: unknown = null;
    if (withPayload && text.trim() !== "") {
      setChecked(true);
      if (jsonProblem(text) !== null) return;
      payload = JSON.parse(text);
      if (declared && payloadMisfits(payload, declared).length > 0) return;
    }
    const stop = new AbortController();
    setRun({ state: "running", since: Date.now(), stop });
    try {
      const result = await send<RunResponse>(
        `/api/extensions/${encodeURIComponent(props.id)}/run`,
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ project: props.project, handler: name, payload }),
          signal: stop.signal,
        },
      );
      props.onReceipt(result.receipt);
      setRun({ state: "done", result });
    } catch (thrown) {
      if (stop.signal.aborted) setRun({ state: "stopped" });
      else setRun({ state: "refused", message: messageOf(thrown) });
    }
  };

  const runButton = () => {
    if (off) return;
    if (declared && !editing) {
      setEditing(true);
      return;
    }
    void start(editing);
  };

  return (
    <div class="run-now">
      <div id={panelId} class="run-editor">
        {editing && (
          <PayloadEditor
            handler={name}
            text={text}
            onText={setText}
            fields={declared ? fieldsLine(declared) || null : null}
            problem={problem}
            misfits={misfits}
            onRun={() => void start(true)}
          />
        )}
      </div>
      <div class="run-row">
        <button
          ref={runButtonRef}
          type="button"
          class={`button${editing ? " primary" : ""}`}
          aria-disabled={why !== null || off || run.state === "running" ? "true" : undefined}
          aria-describedby={why ? reasonId : undefined}
          aria-expanded={declared && !editing ? false : undefined}
          aria-controls={declared && !editing ? panelId : undefined}
          onClick={runButton}
        >
          {editing ? `Run ${name}` : declared ? "Run now…" : "Run now"}
        </button>
        {!why && !declared && !editing && (
          <button
            type="button"
            class="button quiet"
            aria-expanded={false}
            aria-controls={panelId}
            aria-disabled={off ? "true" : undefined}
            onClick={() => !off && setEditing(true)}
          >
            With a payload…
          </button>
        )}
        {editing && run.state !== "running" && (
          <button
            type="button"
            class="button quiet"
            onClick={() => {
              setEditing(false);
              editorOpened.current = false;
              setChecked(false);
              // The button that goes takes the focus with it: it comes back to Run now.
              runButtonRef.current?.focus();
            }}
          >
            Cancel
          </button>
        )}
        {why && <span id={reasonId} class="tertiary run-why">{why}</span>}
      </div>
      <div class="run-panel">
        <p class="visually-hidden" role="status">
          {run.state === "done"
            ? `${name}: ${outcomeWords(run.result.outcome)}`
            : run.state === "refused"
            ? `${name} could not run`
            : ""}
        </p>
        {run.state === "running" && (
          <p class="run-running secondary">
            <span class="spinner" aria-hidden="true" />
            Running {name}… {seconds > 0 ? `${seconds} s` : ""}
            <button type="button" class="button quiet" onClick={() => run.stop.abort()}>
              Stop
            </button>
          </p>
        )}
        {run.state === "done" && <RunResult handler={name} result={run.result} />}
        {run.state === "refused" && (
          <p class="error run-error" role="alert">It could not run: {run.message}</p>
        )}
        {run.state === "stopped" && (
          <p class="secondary">
            Stopped: the call was called off and nothing it did is kept. Its receipt says so below.
          </p>
        )}
      </div>
    </div>
  );
}
