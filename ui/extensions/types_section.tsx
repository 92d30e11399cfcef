import type { PublishedType } from "../../runtime/web/api/types.ts";

/** Props of {@linkcode TypesSection}. */
export interface TypesSectionProps {
  /** The types the package publishes. */
  types: PublishedType[];
}

/** The record types a package publishes into the project's memory; a file that cannot be read is said quietly. */
export function TypesSection(props: TypesSectionProps) {
  return (
    <section class="page-section" aria-labelledby="types-title">
      <h3 id="types-title" class="section-title">Records it keeps in the project's memory</h3>
      <ul class="plain-list type-list" aria-label="Record types">
        {props.types.map((type) => (
          <li key={type.file} class="type-item">
            <div class="type-top">
              <span class="primary">{type.title ?? type.kind ?? type.file}</span>
              {type.kind && <code class="tertiary">{type.kind}</code>}
            </div>
            {type.description && <p class="secondary">{type.description}</p>}
            {type.problem && (
              <p class="tertiary">
                <span class="mono">{type.file}</span> cannot be read: {type.problem}
              </p>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
