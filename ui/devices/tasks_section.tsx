import type { DeviceView } from "../../runtime/web/api/devices_types.ts";
import { AttemptRow } from "./attempt_row.tsx";
import { everyWords } from "./device_words.ts";

/** Props of {@linkcode TasksSection}. */
export interface TasksSectionProps {
  /** The project folder. */
  project: string;
  /** The device. */
  device: DeviceView;
}

/**
 * The device's tasks: what each does, when it runs next, and its recent
 * attempts, newest first.
 */
export function TasksSection(props: TasksSectionProps) {
  const { device } = props;
  return (
    <section class="page-section" aria-labelledby="tasks-title">
      <div class="section-head">
        <h3 id="tasks-title" class="section-title">Its runs</h3>
        <span class="tertiary">Each task, and its newest attempts</span>
      </div>
      <ul class="plain-list">
        {device.tasks.map((task) => (
          <li key={task.name} class="device-task">
            <p>
              <code class="handler-name">{task.name}</code>{" "}
              <span class="secondary">{task.description}</span>
            </p>
            <p class="tertiary">
              {task.parkedUntilReview
                ? "Waits for you: a run's outcome is unknown, and it is never sent again by itself."
                : task.nextRunAt !== null && device.state !== "paused"
                ? `${task.every ? `Runs ${everyWords(task.every)}; next` : "Next"} ${
                  whenWords(task.nextRunAt)
                }`
                : task.every
                ? `Runs ${everyWords(task.every)} while connected and not paused`
                : "Runs when you ask"}
            </p>
            {task.attempts.length === 0
              ? <p class="tertiary">No attempt yet.</p>
              : (
                <ol class="plain-list receipt-list" aria-label={`Attempts of ${task.name}`}>
                  {task.attempts.map((attempt) => (
                    <AttemptRow
                      key={attempt.id}
                      project={props.project}
                      id={device.id}
                      attempt={attempt}
                    />
                  ))}
                </ol>
              )}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** "at 5:42 PM" today, "on Dec 8, 5:42 PM" later, "now" when due; in the reader's zone. */
function whenWords(at: number): string {
  if (at <= Date.now()) return "now";
  const date = new Date(at);
  const time = date.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" });
  if (date.toDateString() === new Date().toDateString()) return `at ${time}`;
  return `on ${date.toLocaleDateString(undefined, { month: "short", day: "numeric" })}, ${time}`;
}
