import { Fragment } from "preact";
import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";
import { usePassing } from "../notices/use_passing.ts";

/** Props of {@linkcode InstallResult}. */
export interface InstallResultProps {
  /** What the install answered. */
  answer: InstallAnswer;
  /** Makes it go: dismissed, or left alone a while. */
  onDismiss: () => void;
}

/**
 * What an install did, in words, beside the Install button: "Installed
 * issues 1.2.0 — approved: background, schedule", then the rest of what
 * `sync install` says (its `installed` handler, where it is read from).
 * Each permission approved is one unit in code style, wrapped as a whole, so
 * a program's command line (`process:tail tail -n 100 -F -`) does not break
 * between its arguments. It goes when dismissed, or left alone a while.
 */
export function InstallResult(props: InstallResultProps) {
  const { answer } = props;
  // The first line is the headline's, the "Approved:" line its end; the rest is said below it.
  const more = answer.lines.slice(1).filter((line) => !line.startsWith("Approved: "));
  const ref = usePassing<HTMLDivElement>(props.onDismiss);
  return (
    <div class="install-result-body" ref={ref}>
      <p>
        <span class="primary">Installed {answer.id} {answer.version}</span> —{" "}
        {answer.approved.length === 0 ? "nothing new to approve" : (
          <>
            approved: {answer.approved.map((permission, index) => (
              // The comma stays with its permission; the space after it is where a line may end.
              <Fragment key={permission}>
                {index > 0 && " "}
                <span class="approved-unit">
                  <code class="approved-permission">{permission}</code>
                  {index < answer.approved.length - 1 ? "," : ""}
                </span>
              </Fragment>
            ))}
          </>
        )}
      </p>
      {more.map((line) => <p key={line} class="secondary">{line}</p>)}
      <p class="tertiary install-result-from">
        {answer.from === "folder" ? "Linked to the folder " : "Unpacked into "}
        <span class="mono">{answer.dir}</span>
      </p>
      <button type="button" class="button" onClick={props.onDismiss}>Dismiss</button>
    </div>
  );
}
