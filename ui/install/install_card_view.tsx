import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import type { InstallCard } from "../../runtime/web/api/events_types.ts";
import { InstallPermissions } from "./install_permissions.tsx";

/** Props of {@linkcode InstallCardView}. */
export interface InstallCardViewProps {
  /** The card the server read. */
  card: InstallCard;
  /** Where the package comes from: its path, or the name of the file uploaded. */
  from: string;
  /** Whether `from` names a file uploaded from the page. */
  uploaded: boolean;
  /**
   * Approves and installs; `replace` is true when the person agreed to
   * replace the package the card says it replaces.
   */
  onApprove: (replace: boolean) => void;
  /** Closes the dialog. */
  onCancel: () => void;
  /** Goes back to the source, with what was given kept. */
  onBack: () => void;
  /** Reads the card again (after the package was fixed); absent when it cannot be. */
  onCheckAgain?: () => void;
  /** What is under way, in words, shown above the actions. */
  progress: ComponentChildren;
  /** Whether an install or a read is under way. */
  busy: boolean;
  /** Why the install was refused, in the server's words; null when it was not. */
  error: string | null;
}

/**
 * The install card: what the package is, what it would replace, what it runs
 * on the clock, what it asks of this project, and what check finds, with
 * Approve or Cancel. Replacing another package of the same id waits for the
 * person to tick that they mean it; when it asks for a permission beyond what
 * Sync guards, or replaces a package, the focus lands on a safe control, so
 * Enter never approves. Every word from the package is rendered as text.
 */
export function InstallCardView(props: InstallCardViewProps) {
  const { card } = props;
  const pkg = card.package;
  const problems = card.problems;
  const primary = useRef<HTMLButtonElement>(null);
  const safe = useRef<HTMLButtonElement>(null);
  const agree = useRef<HTMLInputElement>(null);
  const [replacing, setReplacing] = useState(false);
  const replaces = card.installable ? card.replaces : null;
  const wide = card.approval !== "approved" && card.permissions.some((p) => p.wide);
  const waits = replaces !== null && !replacing;
  const from = (
    <p class="tertiary install-card-from">
      {props.uploaded ? "Uploaded from " : "From "}
      <span class="mono">{props.from}</span>
    </p>
  );
  // `autofocus` counts only when the dialog opens; the card comes later, and its primary action
  // takes the focus then, so Enter approves — unless approving hands over more than Sync guards
  // or replaces a package: then the agreement, or Cancel, has it. Buttons wait with
  // aria-disabled rather than disabled, which would drop the focus to the page.
  useEffect(() => {
    setReplacing(false);
    if (replaces) agree.current?.focus();
    else if (wide) safe.current?.focus();
    else primary.current?.focus();
  }, [card]);
  return (
    <div class="install-card">
      {pkg
        ? (
          <header class="install-card-header">
            <h3 class="install-card-name">
              {pkg.name} <span class="tertiary">{pkg.version}</span>
            </h3>
            <p class="tertiary mono">{pkg.id}</p>
            {pkg.description && <p class="secondary">{pkg.description}</p>}
            {from}
          </header>
        )
        : (
          <header class="install-card-header">
            <h3 class="install-card-name">Its manifest cannot be read</h3>
            {from}
          </header>
        )}

      {replaces && (
        <section
          class="install-card-section install-card-replaces"
          aria-labelledby="install-card-replaces"
        >
          <h4 id="install-card-replaces" class="install-card-heading install-card-replaces-title">
            This replaces {replaces.text}
          </h4>
          <p class="secondary">
            Installing it replaces that package in every project that lists {replaces.id}:{" "}
            {replaces.why}.
          </p>
          <label class="install-card-agree">
            <input
              type="checkbox"
              ref={agree}
              checked={replacing}
              onChange={(event) => setReplacing((event.currentTarget as HTMLInputElement).checked)}
            />
            Replace {replaces.id} {replaces.version} with this package
          </label>
        </section>
      )}

      {pkg && pkg.schedule.length > 0 && (
        <section class="install-card-section" aria-labelledby="install-card-clock">
          <h4 id="install-card-clock" class="install-card-heading">What it runs on the clock</h4>
          <ul class="install-card-rows">
            {pkg.schedule.map((row) => (
              <li key={`${row.handler}-${row.every}`}>
                {row.description}, <span class="secondary">{row.wording}</span>
              </li>
            ))}
          </ul>
        </section>
      )}

      {pkg && <InstallPermissions card={card} />}

      {problems.length > 0 && (
        <section class="install-card-section" aria-labelledby="install-card-problems">
          <h4 id="install-card-problems" class="install-card-heading install-card-problem-title">
            Check found {problems.length === 1 ? "a problem" : `${problems.length} problems`}
          </h4>
          {/* It scrolls when long: focusable, so the keyboard scrolls it too. */}
          <pre class="install-card-problems" tabIndex={0}>
            {problems.map((p) => p.text).join("\n\n")}
          </pre>
          <p class="secondary">
            It cannot be installed until it passes check. Fix{" "}
            {problems.length === 1 ? "it" : "them"}{" "}
            in the package (deno task check shows the same, in the same order), {props.onCheckAgain
              ? "then Check again: it builds the package and checks it again."
              : "then choose it again."}
          </p>
        </section>
      )}

      {props.progress}
      {props.error && <p id="install-error" class="error" role="alert">{props.error}</p>}

      <div class="dialog-actions">
        {card.installable
          ? (
            <>
              <button
                type="button"
                class="button"
                ref={safe}
                onClick={() => !props.busy && props.onCancel()}
                aria-disabled={props.busy ? "true" : undefined}
              >
                Cancel
              </button>
              <button
                type="button"
                class={wide ? "button danger" : replaces ? "button" : "button primary"}
                ref={primary}
                onClick={() => !props.busy && !waits && props.onApprove(replaces !== null)}
                aria-disabled={props.busy || waits ? "true" : undefined}
                aria-describedby={props.error
                  ? "install-error"
                  : waits
                  ? "install-card-replaces"
                  : undefined}
              >
                {card.approval === "approved" ? "Install" : "Approve"}
              </button>
            </>
          )
          : (
            <>
              <button
                type="button"
                class="button"
                onClick={() => !props.busy && props.onCancel()}
                aria-disabled={props.busy ? "true" : undefined}
              >
                Cancel
              </button>
              <button
                type="button"
                class="button"
                onClick={() => !props.busy && props.onBack()}
                aria-disabled={props.busy ? "true" : undefined}
              >
                Back
              </button>
              {props.onCheckAgain && (
                <button
                  type="button"
                  class="button primary"
                  ref={primary}
                  onClick={() => !props.busy && props.onCheckAgain!()}
                  aria-disabled={props.busy ? "true" : undefined}
                  autofocus
                >
                  Check again
                </button>
              )}
            </>
          )}
      </div>
    </div>
  );
}
