import type { Lamp as LampValue, UnreadableExtension } from "../../runtime/web/api/types.ts";
import { Lamp } from "./lamp.tsx";
import { RemoveSection } from "./remove_section.tsx";

/** Props of {@linkcode UnreadablePage}. */
export interface UnreadablePageProps {
  /** The package as the API could tell it. */
  unreadable: UnreadableExtension;
  /** Its lamp, from the Extensions list, when the list has it. */
  lamp: LampValue | null;
  /** The project folder, as the address gives it. */
  project: string;
}

/**
 * The page of a package the project lists but Sync cannot read: why, what
 * to do (fix the linked folder, which Sync reads again as it changes, or
 * install it again), and Remove…, which works without its files. The page
 * comes back by itself once the package reads again. Its problem is the reader's words about the
 * package's files, shown as text.
 */
export function UnreadablePage(props: UnreadablePageProps) {
  const { unreadable } = props;
  const { id } = unreadable;
  const linked = unreadable.linkedFolder;
  return (
    <article class="extension-page" aria-labelledby="page-name">
      <header class="page-header">
        <div class="page-title-row">
          <h2 id="page-name" class="page-title">{id}</h2>
          {props.lamp && (
            <span class="page-lamp">
              <Lamp lamp={props.lamp} showLabel />
            </span>
          )}
        </div>
        <p class="secondary page-description">
          {unreadable.state === "cannot-load"
            ? `This project lists ${id}, but Sync cannot read it, so nothing of it runs here.`
            : `This project lists ${id}, but this machine has no package of that id, so nothing of it runs here.`}
        </p>
      </header>
      <section class="page-section" aria-labelledby="unreadable-title">
        <h3 id="unreadable-title" class="section-title">
          {unreadable.state === "cannot-load" ? "Why it cannot be read" : "What to do"}
        </h3>
        {unreadable.problem !== null && <p class="problem-text mono">{unreadable.problem}</p>}
        {unreadable.state === "cannot-load" && linked !== null && (
          <p class="secondary unreadable-next">
            It is installed as a linked folder, <span class="mono">{linked}</span>
            , which Sync reads again as it changes: fix the problem there, and this page comes back
            by itself. Or install it again, from a folder or an archive, with the Install… button.
          </p>
        )}
        {unreadable.state === "cannot-load" && linked === null && (
          <p class="secondary unreadable-next">
            Install it again, from its folder or an archive, with the Install… button.
          </p>
        )}
        {unreadable.state === "not-on-machine" && (
          <p class="secondary unreadable-next">
            Install it, from its folder or an archive, with the Install… button, or remove it from
            this project.
          </p>
        )}
      </section>
      <RemoveSection
        id={id}
        name={id}
        removal={unreadable.removal}
        project={props.project}
      />
    </article>
  );
}
