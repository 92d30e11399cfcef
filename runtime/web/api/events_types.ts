/**
 * The shapes the web API answers and streams, in one place for the page to
 * import (type-only): the facts on `GET /api/events` and
 * `GET /api/projects/events`, the install card of
 * `POST /api/install/card`, and the answers of `POST /api/install` and
 * `POST /api/uploads`.
 *
 * @module
 */
import type { SyncEvent } from "../../sync_event.ts";
import type { ResyncEvent } from "../../event_bus.ts";

export type {
  ActivityEvent,
  DeviceEvent,
  EventSink,
  HandlerEndedEvent,
  HandlerStartedEvent,
  InstalledEvent,
  InstallProgressEvent,
  OpenedEvent,
  PackageChangedEvent,
  ReceiptEvent,
  RemovedEvent,
  SessionEvent,
  SwitchEvent,
  SyncEvent,
  TranscriptEvent,
  UnscheduledEvent,
} from "../../sync_event.ts";
export type { ResyncEvent } from "../../event_bus.ts";
export type {
  CardPackage,
  CardPermission,
  CardProblem,
  CardScheduleRow,
  InstallCard,
  Replaced,
} from "../../lifecycle/mod.ts";
export type { Receipt } from "../../types.ts";
export type {
  InstallAnswer,
  InstallCardRequest,
  InstallRequest,
  InstallSource,
} from "./install.ts";
export type { UploadAnswer } from "./uploads.ts";

/** The first event of every stream: it is open, and watches this project (or every project). */
export interface ReadyEvent {
  /** The kind of event. */
  type: "ready";
  /** The project's resolved folder; absent on `GET /api/projects/events`, which watches them all. */
  project?: string;
}

/**
 * Every event `GET /api/events` and `GET /api/projects/events` send; its SSE
 * event name is its `type`, its data the object as JSON.
 */
export type StreamEvent = ReadyEvent | ResyncEvent | SyncEvent;
