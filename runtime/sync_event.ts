/**
 * The facts the installation's owner tells whoever is watching: a handler
 * started or ended, a receipt was written, a clock was switched, a package
 * was installed or removed, a linked package's files changed, a project was
 * opened or taken off the clock. Each is published where it happens, through an
 * {@linkcode EventSink} handed in as a parameter; the web app's event stream
 * (`GET /api/events`) carries them to open pages. They are told after the
 * fact is written, never instead of it: a page that missed some reads the
 * state again.
 *
 * @module
 */
import type { AgentActivity } from "./agent_activity.ts";
import type { AgentSession } from "./agent_session.ts";
import type { TranscriptEntry } from "./transcript.ts";
import type { Receipt } from "./types.ts";

/** A handler call took its claim and is running now (a lamp starts breathing). */
export interface HandlerStartedEvent {
  /** The kind of fact. */
  type: "handler-started";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
  /** The handler's name, such as `issues.poll`. */
  handler: string;
  /** The id the call's receipt will have. */
  receiptId: string;
  /** When the call started, as an ISO 8601 time. */
  startedAt: string;
}

/** A handler call that started has ended, whether or not its receipt could be written. */
export interface HandlerEndedEvent {
  /** The kind of fact. */
  type: "handler-ended";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
  /** The handler's name. */
  handler: string;
  /** The id of the call's receipt. */
  receiptId: string;
  /** How the call ended. */
  outcome: Receipt["outcome"];
}

/** A receipt was written: a call ended, the clock passed one over, or a call was found interrupted. */
export interface ReceiptEvent {
  /** The kind of fact. */
  type: "receipt";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
  /** The receipt as written. */
  receipt: Receipt;
  /**
   * The call committed work orders into the project's outbox: what the work
   * performer looks there for, rather than at every receipt.
   */
  workOrdered?: boolean;
}

/** A person switched a package's clock off or on in a project. */
export interface SwitchEvent {
  /** The kind of fact. */
  type: "switch";
  /** The project's resolved folder (or the path as given, when the folder is gone). */
  project: string;
  /** The package id. */
  packageId: string;
  /** True when the clock is on now. */
  on: boolean;
}

/**
 * A package was installed into a project, or an update was stored and waits
 * for a person's approval while the version approved before keeps serving.
 */
export interface InstalledEvent {
  /** The kind of fact. */
  type: "installed";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
  /** The version installed (or waiting). */
  version: string;
  /** True when the version is stored but waits for approval in this project. */
  waitingForApproval: boolean;
}

/** A package was removed from a project (its records stay). */
export interface RemovedEvent {
  /** The kind of fact. */
  type: "removed";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
}

/**
 * A project was opened (from a page, or by `sync open`): the installation
 * remembers it as opened now, with the ids it lists, and it is on the
 * clock's list if a package there has a schedule. Told before its `opened`
 * handlers run, whose receipts are told as they are written.
 */
export interface OpenedEvent {
  /** The kind of fact. */
  type: "opened";
  /** The project's resolved folder. */
  project: string;
}

/** A person took a project off the clock's scheduled-projects list (`sync projects forget`). */
export interface UnscheduledEvent {
  /** The kind of fact. */
  type: "unscheduled";
  /** The project's resolved folder (or the path as given, when the folder is gone). */
  project: string;
}

/**
 * Files of a package linked from a folder changed — its manifest, service
 * module, screen, types or prompt, or the folder itself went or came back —
 * so what is shown of it (its lamp, its page) must be read again. Told only
 * for the projects a window watches (`runtime/web/linked_folders.ts`), once
 * a burst of changes has settled.
 */
export interface PackageChangedEvent {
  /** The kind of fact. */
  type: "package-changed";
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  packageId: string;
}

/** Where an install into a project has got to, for a page that shows its progress. */
export interface InstallProgressEvent {
  /** The kind of fact. */
  type: "install-progress";
  /** The project's resolved folder. */
  project: string;
  /** The folder or archive installed from, as the install was given it. */
  source: string;
  /**
   * `unpacking`: the archive is read and its entries checked and written;
   * `checking`: check runs over the package; `installing`: its `installed`
   * handler runs and the install is committed.
   */
  stage: "unpacking" | "checking" | "installing";
}

/**
 * An agent session was begun, or its state, title or wait changed, or it was
 * deleted.
 */
export interface SessionEvent {
  /** The kind of fact. */
  type: "session";
  /** The project's resolved folder. */
  project: string;
  /** The session's pointer as it is now; once deleted, as it was. */
  session: AgentSession;
  /**
   * True when a person deleted the session: there is nothing left to read of
   * it, so a page drops it rather than reading it again.
   */
  deleted?: true;
}

/** An entry was added to an agent session's transcript (one per streamed chunk). */
export interface TranscriptEvent {
  /** The kind of fact. */
  type: "transcript";
  /** The project's resolved folder. */
  project: string;
  /** The session's key. */
  sessionKey: string;
  /** The entry, as the agent sent it; chunks are joined by whoever shows them (`appendEntry`). */
  entry: TranscriptEntry;
}

/**
 * What an agent is doing while a turn runs (or while it is raised) changed:
 * heard from again, more on its stderr, npm downloading it. Told at most a
 * few times a second, and as null once the turn is over; never written down.
 */
export interface ActivityEvent {
  /** The kind of fact. */
  type: "activity";
  /** The project's resolved folder. */
  project: string;
  /** The session's key. */
  sessionKey: string;
  /** What the agent is doing, or null when nobody waits for it any more. */
  activity: AgentActivity | null;
}

/**
 * A device changed: its account, its state or notice, its last read, or a
 * task's attempt began or ended. The window reads it again
 * (`GET /api/devices?project=…`); the fact carries nothing of the account.
 */
export interface DeviceEvent {
  /** The kind of fact. */
  type: "device";
  /** The project's resolved folder. */
  project: string;
  /** The package id: the device's identity in its project. */
  packageId: string;
}

/** Every fact the owner publishes. Each names the project it happened in. */
export type SyncEvent =
  | HandlerStartedEvent
  | HandlerEndedEvent
  | ReceiptEvent
  | SwitchEvent
  | InstalledEvent
  | RemovedEvent
  | PackageChangedEvent
  | OpenedEvent
  | UnscheduledEvent
  | InstallProgressEvent
  | SessionEvent
  | TranscriptEvent
  | ActivityEvent
  | DeviceEvent;

/**
 * What publishes facts. Publishing never waits and never fails the
 * publisher: a fact nobody is watching is dropped.
 */
export interface EventSink {
  /**
   * Tells every watcher of the event's project.
   *
   * @param event The fact, after it is written.
   */
  publish(event: SyncEvent): void;
}
