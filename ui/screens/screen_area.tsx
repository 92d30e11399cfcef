import { useState } from "preact/hooks";
import type { ProjectState } from "../state/project_state.ts";
import { ScreenFrame } from "./screen_frame.tsx";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";
import type { Activation } from "./screen_bridge.ts";

/** Props of {@linkcode ScreenArea}. */
export interface ScreenAreaProps {
  /** The project's live state. */
  state: ProjectState;
  /** The package whose screen is shown. */
  id: string;
}

/**
 * A package's screen, turned over the list and detail columns: its name and
 * what became of its activation above, the sandboxed frame below. Shown only
 * while the package serves the project with a screen.
 */
export function ScreenArea(props: ScreenAreaProps) {
  const [activation, setActivation] = useState<Activation>({ state: "waiting" });
  const extensions = props.state.extensions.value;
  const summary = extensions?.find((extension) => extension.id === props.id);
  const shown = summary && summary.hasScreen && summary.lamp.state !== "dark";
  return (
    <main class="screen-area" aria-label={summary ? `${summary.name} screen` : "Screen"}>
      <header class="column-header screen-header">
        <h1 class="column-title">{summary?.name ?? props.id}</h1>
        <p class="tertiary screen-state" role="status" data-state={activation.state}>
          {!shown
            ? ""
            : activation.state === "active"
            ? "Running in a sandbox: it reaches this project only through Sync"
            : activation.state === "waiting"
            ? "Starting…"
            : ""}
        </p>
      </header>
      {activation.state === "failed" && (
        <p class="error screen-error" role="alert">
          The screen could not start: {activation.message}
        </p>
      )}
      {extensions === null ? null : shown
        ? (
          <ScreenFrame
            // A new version is a new screen: the old one's channel and processes close with it.
            key={`${props.state.project}\n${props.id}\n${summary.version}`}
            project={props.state.project}
            id={props.id}
            name={summary.name}
            onActivation={setActivation}
          />
        )
        : (
          <div class="empty-detail">
            <div class="empty-action">
              <p class="secondary">
                {!summary
                  ? `${props.id} is not installed in this project, so it has no screen here. Install it from the Extensions list.`
                  : !summary.hasScreen
                  ? `${summary.name} has no screen. Its page says what it does.`
                  : `${summary.name} is not set up in this project: its page says what it needs.`}
              </p>
              <Link
                class="button"
                href={projectPath(
                  props.state.project,
                  "extensions",
                  summary ? props.id : undefined,
                )}
              >
                {summary ? `Go to ${summary.name}'s page` : "Go to the Extensions list"}
              </Link>
            </div>
          </div>
        )}
    </main>
  );
}
