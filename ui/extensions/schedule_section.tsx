import type { ExtensionPageResponse } from "../../runtime/web/api/types.ts";
import { ClockSwitch } from "./clock_switch.tsx";

/** Props of {@linkcode ScheduleSection}. */
export interface ScheduleSectionProps {
  /** The page as the API answered it. */
  page: ExtensionPageResponse;
  /** The project folder. */
  project: string;
  /** Reads the page again. */
  reload: () => void;
}

/**
 * "What it does with no screen": one row per scheduled handler, in the words
 * `sync schedule` uses, with the Off | On control on the first row. The rows
 * say what it does, never when it last ran: that is the receipts' job.
 */
export function ScheduleSection(props: ScheduleSectionProps) {
  const { page } = props;
  const rows = page.schedule.rows;
  return (
    <section class="page-section" aria-labelledby="schedule-title">
      <h3 id="schedule-title" class="section-title">What it does with no screen</h3>
      {rows.length === 0
        ? (
          <p class="secondary">
            {page.adds.handlers.length === 0
              ? "Nothing: it runs no code."
              : "Nothing on a clock: its handlers run only when something calls them."}
          </p>
        )
        : (
          <ul class="plain-list schedule-list" aria-label="Scheduled work">
            {rows.map((row, index) => (
              <li key={row.handler} class="schedule-row">
                <div class="schedule-words">
                  <span class={row.on ? "primary" : "secondary"}>{row.words}</span>
                  {row.offNote && <span class="tertiary">{row.offNote}</span>}
                </div>
                {index === 0 && page.schedule.on !== null && (
                  <ClockSwitch
                    id={page.id}
                    name={page.name}
                    project={props.project}
                    on={page.schedule.on}
                    onSwitched={props.reload}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
    </section>
  );
}
