import { Link } from "../common/link.tsx";
import type { ProjectState } from "../state/project_state.ts";
import { type Area, projectPath } from "../state/route.ts";
import { folderName } from "../common/folder_name.ts";
import { WindowShortcuts } from "./window_shortcuts.tsx";

/** Props of {@linkcode Navigator}. */
export interface NavigatorProps {
  /** The project's live state. */
  state: ProjectState;
  /** The area shown. */
  area: Area;
  /** The package whose screen is shown, in the screen area. */
  screen?: string | null;
  /** How many notices not dismissed each area has (`ui/notices/`); none when absent. */
  counts?: ReadonlyMap<Area, number>;
}

/**
 * The window's first column: the project, its areas, and the way back to
 * every project. In a narrow window it shows only glyphs; each entry keeps
 * its name as its accessible name and its tooltip, and a screen's glyph is
 * its package's initial (two letters where initials meet), so screens are
 * told apart at a glance. An area with notices of background failures
 * (`ui/notices/`) shows how many beside its name.
 */
export function Navigator(props: NavigatorProps) {
  const { state } = props;
  const folder = state.resolved.value ?? state.project;
  const areas: { area: Area; label: string; glyph: string }[] = [
    { area: "extensions", label: "Extensions", glyph: "▦" },
    { area: "devices", label: "Devices", glyph: "◎" },
    { area: "chat", label: "Chat", glyph: "✎" },
    { area: "records", label: "Records", glyph: "▤" },
  ];
  // A screen is offered once its package serves the project: installed and approved here.
  const screens = (state.extensions.value ?? []).filter((extension) =>
    extension.hasScreen && extension.lamp.state !== "dark"
  );
  const glyphs = glyphsOf(screens.map((extension) => extension.name));
  return (
    <nav class="navigator" aria-label="Project">
      <Link href="/" class="navigator-back" label="All projects" title="All projects">
        <span aria-hidden="true" class="glyph">‹</span>
        <span class="navigator-text">All projects</span>
      </Link>
      <div class="navigator-project">
        <div class="primary navigator-text">{folderName(folder)}</div>
        <div class="tertiary mono navigator-text" title={folder}>{folder}</div>
        {/* In a narrow window the name stays, cut short, with the whole folder on hover. */}
        <div class="navigator-short" aria-hidden="true" title={folder}>{folderName(folder)}</div>
      </div>
      <ul class="navigator-areas">
        {areas.map(({ area, label, glyph }) => {
          const count = props.counts?.get(area) ?? 0;
          return (
            <li key={area}>
              {/* With a count, the name is what shows: "Chat 2 notices", the count's word hidden. */}
              <Link
                href={projectPath(state.project, area)}
                class="navigator-area"
                current={props.area === area ? "page" : undefined}
                label={count > 0 ? undefined : label}
                title={count > 0 ? `${label}, ${noticesWords(count)}` : label}
              >
                <span aria-hidden="true" class="glyph">{glyph}</span>
                <span class="navigator-text">{label}</span>
                {count > 0 && (
                  <span class="navigator-count">
                    {` ${count}`}
                    <span class="visually-hidden">{count === 1 ? " notice" : " notices"}</span>
                  </span>
                )}
              </Link>
            </li>
          );
        })}
      </ul>
      {screens.length > 0 && (
        <ul class="navigator-areas navigator-screens" aria-label="Screens">
          {screens.map((extension, index) => (
            <li key={extension.id}>
              <Link
                href={projectPath(state.project, "screen", extension.id)}
                class="navigator-area"
                current={props.area === "screen" && props.screen === extension.id
                  ? "page"
                  : undefined}
                title={extension.name}
              >
                <span aria-hidden="true" class="glyph glyph-initial">
                  {glyphs[index]}
                </span>
                <span class="navigator-text">{extension.name}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <WindowShortcuts state={state} />
    </nav>
  );
}

/** "1 notice", "3 notices". */
function noticesWords(count: number): string {
  return count === 1 ? "1 notice" : `${count} notices`;
}

/**
 * Each screen's glyph: its name's first letter, uppercase, or its first two
 * when another screen's name begins with the same letter ("Bo", "Br").
 */
function glyphsOf(names: string[]): string[] {
  const letters = names.map((name) => Array.from(name.trim()));
  const first = letters.map((chars) => (chars[0] ?? "?").toLocaleUpperCase());
  return letters.map((chars, i) =>
    first.some((other, j) => j !== i && other === first[i])
      ? first[i] + (chars[1] ?? "").toLocaleLowerCase()
      : first[i]
  );
}
