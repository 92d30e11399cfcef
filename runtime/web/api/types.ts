/**
 * The shapes the web app's JSON API answers, for the browser app to import
 * type-only. Every string in them that a package provides (names,
 * descriptions, prompts, schedule text, error messages) is the package's own
 * text, kept as written: show it as text, never as HTML.
 *
 * @module
 */
import type {
  ExtensionPage,
  ExtensionSummary,
  Lamp,
  LampNotice,
  LampReason,
  LampState,
  ReceiptLine,
  Removal,
} from "../../extensions/mod.ts";
import type { LifecycleRun } from "../../lifecycle/mod.ts";
import type { ProjectInfo } from "../../projects/mod.ts";
import type { ReceiptConsole } from "../../host/mod.ts";
import type { Outcome } from "../../types.ts";

export type {
  ExtensionPage,
  ExtensionSummary,
  HandlerLine,
  PermissionLine,
  PublishedType,
  ReceiptLine,
  Removal,
  ScheduleLine,
} from "../../extensions/mod.ts";
export type { Lamp, LampNotice, LampReason, LampState };
export type { ScheduleView } from "../../clock/mod.ts";
export type { Outcome, Receipt, Source } from "../../types.ts";
export type { KeptConsoleLine, ReceiptConsole } from "../../host/mod.ts";
export type { ProjectReceiptsResponse } from "./receipts_types.ts";

/** What every route answers when it refuses: a message naming what was wrong, and the error's class. */
export interface ErrorResponse {
  /** What was wrong and where, such as `project: required: the project folder's absolute path`. */
  error: string;
  /** The error's class, such as `NotFoundError`; absent for refusals of the guards. */
  name?: string;
}

/** A project on the clock's scheduled-projects list. */
export interface ScheduledProjectEntry {
  /** Absolute, resolved path of the project folder. */
  path: string;
  /** When it was put on the list, as an ISO 8601 time. */
  addedAt: string;
  /** Its folder is no longer there: the clock passes it over. */
  gone: boolean;
}

/** A project the installation remembers. */
export interface RecentProjectEntry {
  /** Absolute, resolved path of the project folder. */
  path: string;
  /** The package ids it listed when it was last opened. */
  extensionIds: string[];
  /** When it was last opened, as an ISO 8601 time. */
  openedAt: string;
  /** Its folder is no longer there. */
  gone: boolean;
}

/** `GET /api/projects`. */
export interface ProjectsResponse {
  /** The projects the clock ticks, in path order. */
  scheduled: ScheduledProjectEntry[];
  /** The projects remembered, last opened first. */
  recent: RecentProjectEntry[];
}

/** `GET /api/extensions?project=…`. */
export interface ExtensionsResponse {
  /** The project's resolved path. */
  project: string;
  /** Every package the project lists, in id order. */
  extensions: ExtensionSummary[];
}

/** `GET /api/extensions/:id?project=…`: the page, with the project's resolved path. */
export interface ExtensionPageResponse extends ExtensionPage {
  /** The project's resolved path. */
  project: string;
}

/**
 * `GET /api/extensions/:id?project=…` of a package the project lists whose
 * page cannot be read: its files are not a package any more (a linked
 * folder's manifest broken, say), or this machine has none of that id. It
 * answers 404 with the usual {@linkcode ErrorResponse}, and what the page can
 * still offer: why, where to fix it, and what removing it does.
 */
export interface UnreadableExtensionResponse extends ErrorResponse {
  /** The package as far as it can be told. */
  unreadable: UnreadableExtension;
}

/** A package a project lists but whose page cannot be read. */
export interface UnreadableExtension {
  /** The package id. */
  id: string;
  /** The project's resolved path. */
  project: string;
  /**
   * `cannot-load`: its files are on this machine but do not read as a
   * package; `not-on-machine`: this machine has no package of that id.
   */
  state: "cannot-load" | "not-on-machine";
  /** What is wrong, in the reader's words; null when it is not on this machine. */
  problem: string | null;
  /** The folder it was linked from, where a fix takes effect; null for an archive or when not on this machine. */
  linkedFolder: string | null;
  /** What removing it from the project keeps and takes, for the confirmation. */
  removal: Removal;
}

/** `POST /api/extensions/:id/switch`. */
export interface SwitchResponse {
  /** The package id. */
  id: string;
  /** The project's resolved path. */
  project: string;
  /** The clock's state now. */
  state: "off" | "on";
  /** The package's lamp now. */
  lamp: Lamp;
}

/** `POST /api/extensions/:id/remove`. */
export interface RemoveResponse {
  /** The package id. */
  id: string;
  /** The project's resolved path. */
  project: string;
  /** Its `removed` handler's run, when it has one and it could run. */
  removed: Omit<LifecycleRun, "failure"> | null;
  /** Why its `removed` handler could not run, when the package could not serve. */
  notice?: string;
  /** What stayed, one sentence each. */
  stays: string[];
  /** What went, one sentence each. */
  went: string[];
}

/** `POST /api/projects/open`: what opening a project did. */
export interface OpenProjectResponse {
  /** What the installation now remembers of the project. */
  project: ProjectInfo;
  /** The project is on the clock's scheduled list. */
  scheduled: boolean;
  /** The `opened` handlers that ran, in the order of the project's ids, with how each ended. */
  opened: Omit<LifecycleRun, "failure">[];
  /** Packages that could not serve, so their `opened` handler did not run, and why. */
  unavailable: { packageId: string; message: string }[];
}

/** `POST /api/screens/call`: a screen's call of one of its package's handlers. */
export interface ScreenCallResponse {
  /** The handler's answer; `null` when it returned nothing. */
  value: unknown;
  /** The receipt the call left: its id and outcome. */
  receipt: { id: string; outcome: string };
}

/** `POST /api/screens/memory` and `POST /api/screens/net`: what the read or request answered. */
export interface ScreenValueResponse {
  /** A page, a record, a content, a response, or `null`. */
  value: unknown;
}

/**
 * A handler's answer as Run now shows it: `none` when it answered nothing,
 * `text` for a string, `json` for anything else laid out as JSON; cut past
 * `RUN_NOW_LIMITS`, with a mark, when `cut`.
 */
export type RunAnswer =
  | { kind: "none" }
  | { kind: "text" | "json"; text: string; cut: boolean };

/** `POST /api/extensions/:id/run`: how a person's call from the page ended, and its receipt. */
export interface RunResponse {
  /** How the call ended, as its receipt says. */
  outcome: Outcome;
  /** What it answered, when it ended `ok`; null otherwise. */
  answer: RunAnswer | null;
  /** Why it did not end `ok`; absent when it did. */
  error?: { name: string; message: string };
  /** The receipt the call left. */
  receipt: ReceiptLine;
}

/** `GET /api/extensions/:id/receipts/:receipt/console`: the console lines kept with a receipt. */
export interface ReceiptConsoleResponse {
  /** The lines, or null when none are kept. */
  console: ReceiptConsole | null;
}

/** One folder the browser may enter. */
export interface FolderEntry {
  /** Its name in its parent. */
  name: string;
  /** Its absolute path, to ask for next. */
  path: string;
}

/** A place the folder browser starts from. */
export interface BrowseRoot {
  /** What it is, in words: "Home" or "Bundled examples". */
  label: string;
  /** Its absolute, resolved path. */
  path: string;
}

/** `GET /api/folders?path=<folder>&hidden=1`: one folder's subfolders. */
export interface FolderListing {
  /** The folder listed, resolved: no `..`, no link in it. */
  path: string;
  /** The folder one up, when it is still inside the root; null at the root. */
  parent: string | null;
  /** The root it is inside. */
  root: BrowseRoot;
  /** Every place the browser may start from. */
  roots: BrowseRoot[];
  /** Its subfolders (and links to folders inside a root), by name. */
  folders: FolderEntry[];
  /** Whether it holds more subfolders than are listed. */
  truncated: boolean;
  /** Why a place was not offered as a root (such as a home folder that is `/`), in words. */
  leftOut?: string[];
}

/** One package folder bundled with Sync, in the checkout's `extensions/`. */
export interface BundledExample {
  /** The package's id. */
  id: string;
  /** Its name. */
  name: string;
  /** Its version. */
  version: string;
  /** What it does, in one line, as its manifest says. */
  description: string;
  /** Its folder's absolute path, to install from. */
  path: string;
}

/** `GET /api/examples`: the bundled example packages. */
export interface ExamplesResponse {
  /** Every example whose manifest reads, by name. */
  examples: BundledExample[];
}
