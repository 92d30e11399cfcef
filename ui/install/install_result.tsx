import type { InstallAnswer } from "../../runtime/web/api/events_types.ts";

/** Props of {@linkcode InstallResult}. */
export interface InstallResultProps {
  /** What the install answered. */
  answer: InstallAnswer;
}

/**
 * What an install did, in words, beside the Install button: "Installed
 * issues 1.2.0 — approved: background, schedule", then the rest of what
 * `sync install` says (its `installed` handler, where it is read from).
 */
export function InstallResult(props: InstallResultProps) {
  const { answer } = props;
  const approved = answer.approved.length
    ? `approved: ${answer.approved.join(", ")}`
    : "nothing new to approve";
  // The first line is the headline's, the "Approved:" line its end; the rest is said below it.
  const more = answer.lines.slice(1).filter((line) => !line.startsWith("Approved: "));
  return (
    <div class="install-result-body">
      <p>
        <span class="primary">Installed {answer.id} {answer.version}</span> — {approved}
      </p>
      {more.map((line) => <p key={line} class="secondary">{line}</p>)}
      <p class="tertiary install-result-from">
        {answer.from === "folder" ? "Linked to the folder " : "Unpacked into "}
        <span class="mono">{answer.dir}</span>
      </p>
    </div>
  );
}
