import type { ComponentChildren } from "preact";
import { Link } from "../common/link.tsx";
import { RelativeTime } from "../common/relative_time.tsx";
import { projectPath } from "../state/route.ts";
import { folderName } from "../common/folder_name.ts";

/** One project in a list. */
export interface ProjectListEntry {
  /** The project folder. */
  path: string;
  /** Its folder is no longer there. */
  gone: boolean;
  /** The time the list is ordered by, ISO 8601. */
  when: string;
  /** What that time is, such as "opened". */
  whenWords: string;
  /** How many extensions it has, when known. */
  extensions?: number;
}

/** Props of {@linkcode ProjectList}. */
export interface ProjectListProps {
  /** The list's title. */
  title: string;
  /** One sentence on what the list is. */
  about: string;
  /** What to say, and to do, when it is empty. */
  empty: string;
  /** The button that does it, shown when it is empty. */
  emptyAction?: ComponentChildren;
  /** Its projects. */
  projects: ProjectListEntry[];
}

/** A titled list of projects, each a link to its window. */
export function ProjectList(props: ProjectListProps) {
  const id = `projects-${props.title.toLowerCase()}`;
  return (
    <section class="project-section" aria-labelledby={id}>
      <h2 id={id} class="section-title">{props.title}</h2>
      <p class="tertiary">{props.about}</p>
      {props.projects.length === 0
        ? (
          <div class="empty empty-action">
            <p class="secondary">{props.empty}</p>
            {props.emptyAction}
          </div>
        )
        : (
          <ul class="project-list">
            {props.projects.map((entry) => (
              <li key={entry.path} class={`project-row ${entry.gone ? "gone" : ""}`}>
                <Link href={projectPath(entry.path)} class="project-link">
                  <span class="primary">{folderName(entry.path)}</span>
                  <span class="tertiary mono">{entry.path}</span>
                </Link>
                <span class="tertiary project-facts">
                  {entry.gone ? "Folder not found" : (
                    <>
                      {entry.extensions !== undefined &&
                        `${entry.extensions} extension${entry.extensions === 1 ? "" : "s"} · `}
                      {entry.whenWords} <RelativeTime iso={entry.when} />
                    </>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}
