/**
 * The clock: one look a minute, due scheduled handlers one at a time, the switch per
 * package and project, attempt stamps, the scheduled-projects list and the schedule a person reads.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { assertSwitchable } from "./assert_switchable.ts";
export { Clock } from "./clock.ts";
export type { ClockHost, ClockOptions, StartOptions } from "./clock.ts";
export type { SkipReason, TickReport, TickRun, TickSkip } from "./tick_report.ts";
export { knownProjectPath, projectOrWhereItWent } from "./known_project_path.ts";
export { clearClockLease } from "./lease.ts";
export { describeSchedule } from "./schedule_view.ts";
export type { DescribeScheduleOptions, ScheduleView } from "./schedule_view.ts";
export {
  forgetScheduledProject,
  listScheduledProjects,
  rememberIfScheduled,
} from "./scheduled_projects.ts";
export type { RememberIfScheduledOptions, ScheduledProject } from "./scheduled_projects.ts";
export { forgetSchedule, needsReview } from "./stamps.ts";
export type { StampOutcome } from "./stamps.ts";
export { isSwitchedOff, switchOff, switchOn } from "./switch.ts";
export type { SwitchOffOptions, SwitchOnOptions } from "./switch.ts";
