/**
 * An extension's page, as a person reads it, in the page's order: what it
 * does, what it adds, the types it publishes, what it tells an agent, what it
 * does with no screen, its receipts, its permissions, and what removing it
 * keeps and takes.
 *
 * Every text here is the package's own or built from it, kept as written:
 * whoever shows it shows it as text, never as markup.
 *
 * @module
 */
import { describeSchedule, type ScheduleView } from "../clock/mod.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { listReceipts } from "../host/mod.ts";
import { cutText } from "../internal/cut_text.ts";
import { EXTENSION_PAGE_LIMITS, type HandlerLimits } from "../limits.ts";
import {
  approvablePermissions,
  describePermission,
  isWidePermission,
  type LifecycleMoment,
  type LoadedPackage,
  loadPackage,
  type Manifest,
  packageFile,
  readApproval,
  readServingState,
  runNowRefusal,
} from "../packages/mod.ts";
import { readDeclaredIds } from "../projects/mod.ts";
import type { Receipt } from "../types.ts";
import { type Lamp, readLamp } from "./lamp.ts";
import { type Removal, removalOf } from "./removal.ts";

/** A permission, and what it means in the words `sync install` prints. */
export interface PermissionLine {
  /** As the manifest spells it, such as `net:api.example.com`. */
  permission: string;
  /** What it lets the package do, such as "may reach api.example.com over the network, through the host". */
  text: string;
  /**
   * True for a permission that reaches past what the host guards (a program
   * run with full user access, a server on this machine or the local
   * network): the page sets it apart as the install card does.
   */
  wide: boolean;
}

/** One handler the package adds. */
export interface HandlerLine {
  /** Its name, such as `issues.poll`. */
  name: string;
  /** What it does, as the package says it. */
  description: string;
  /** What it tells an agent when it is also an agent tool; null when it is not one. */
  agentTool: string | null;
  /** The lifecycle moments it is called at. */
  moments: LifecycleMoment[];
  /**
   * The payload it takes, as the JSON Schema of its agent tool's input; null
   * when it declares none.
   */
  input: Record<string, unknown> | null;
  /** Why a person may not run it now from the page; null when they may. */
  runRefusal: string | null;
}

/** One type the package publishes, from its `types/*.json`. */
export interface PublishedType {
  /** The file, as the manifest names it. */
  file: string;
  /** The kind, such as `issues.issue`; null when the file cannot be read. */
  kind: string | null;
  /** Its `title`, when it has one. */
  title: string | null;
  /** Its `description`, when it has one. */
  description: string | null;
  /** The file's whole JSON; null when it cannot be read. */
  definition: unknown;
  /** Why it could not be read; absent when it was. */
  problem?: string;
}

/** One row of "What it does with no screen": a scheduled handler, in `sync schedule`'s words. */
export interface ScheduleLine extends ScheduleView {
  /** The row as `sync schedule` says it: the package's description, then the interval ("…, every hour"). */
  words: string;
  /** "Off for this project" while the clock is off here; absent while it is on. */
  offNote?: string;
}

/** One receipt on the page. */
export interface ReceiptLine extends Receipt {
  /** How long the attempt took, in ms. */
  durationMs: number;
}

/** An extension's page. */
export interface ExtensionPage {
  /** The package id. */
  id: string;
  /** The name a person sees. */
  name: string;
  /** The version the page describes: the one serving here, or the one waiting for approval when none does. */
  version: string;
  /** What it does. */
  description: string;
  /** Its lamp here. */
  lamp: Lamp;
  /** What it adds: its handlers and, when it has one, its screen. */
  adds: {
    /** Its handlers, in name order. */
    handlers: HandlerLine[];
    /** The screen's module, as the manifest names it; null when it has none. */
    screen: string | null;
  };
  /** The types it publishes. */
  types: PublishedType[];
  /** What it tells an agent: its prompt file as plain text, cut past a limit; null when it has none. */
  prompt: { file: string; text: string } | null;
  /** What it does with no screen. */
  schedule: {
    /** Whether its clock runs in this project; null when it has no schedule. */
    on: boolean | null;
    /** One row per scheduled handler. */
    rows: ScheduleLine[];
  };
  /** Its receipts here, newest first. */
  receipts: ReceiptLine[];
  /** The permissions of the version the page describes. */
  permissions: PermissionLine[];
  /** An update that waits for approval; null when none does. */
  update: {
    /** Its version. */
    version: string;
    /** Only what it asks for beyond what this project approved. */
    widened: PermissionLine[];
    /** The version serving meanwhile; null when nothing approved is left to serve. */
    serves: string | null;
  } | null;
  /** What removing it keeps and what it takes, for the confirmation. */
  removal: Removal;
}

/** Options for {@linkcode describeExtension}. */
export interface DescribeExtensionOptions {
  /** The host's clock, in ms. */
  now: () => number;
  /** The limits calls run under (for the schedule rows). */
  limits: Pick<HandlerLimits, "timeoutMs" | "workerGraceMs">;
  /** How many receipts, newest first; `EXTENSION_PAGE_LIMITS.defaultReceipts` by default. */
  receipts?: number;
}

/**
 * Reads an extension's page in a project.
 *
 * @param kv The installation's KV.
 * @param project The project's resolved path.
 * @param id The package id.
 * @param options The host's clock and limits, and how many receipts.
 * @throws {NotFoundError} when the project does not list the package, or it
 *   is not on this machine or cannot be read (the Extensions list says which).
 */
export async function describeExtension(
  kv: Deno.Kv,
  project: string,
  id: string,
  options: DescribeExtensionOptions,
): Promise<ExtensionPage> {
  const ids = await readDeclaredIds(project);
  if (!ids.includes(id)) throw new NotFoundError(`${id} is not installed in ${project}`);
  const serving = await readServingState(kv, project, id);
  if (serving.state === "not-on-machine") {
    throw new NotFoundError(`${id} is listed in ${project} but is not on this machine`);
  }
  if (serving.state === "cannot-load") {
    throw new NotFoundError(`${id} cannot be read: ${serving.message}`);
  }
  let shown: LoadedPackage = serving.current;
  let update: ExtensionPage["update"] = null;
  if (serving.state === "awaits-approval") {
    update = {
      version: serving.current.manifest.version,
      widened: permissionLines(serving.widened),
      serves: serving.serves,
    };
    // The page describes what serves; the update is shown beside it, as new.
    const approval = await readApproval(kv, project, id);
    if (serving.serves !== null && approval) {
      try {
        shown = await loadPackage(approval.ref);
      } catch { /* gone since: describe the update */ }
    }
  }
  const manifest = shown.manifest;
  const rows = (await describeSchedule(kv, project, options)).filter((row) => row.packageId === id);
  const receipts = await listReceipts(kv, project, {
    packageId: id,
    limit: options.receipts ?? EXTENSION_PAGE_LIMITS.defaultReceipts,
  });
  return {
    id,
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    lamp: await readLamp(kv, project, id, options),
    adds: { handlers: handlerLines(manifest), screen: manifest.ui ?? null },
    types: await publishedTypes(shown),
    prompt: await promptOf(shown),
    schedule: {
      on: rows.length === 0 ? null : rows[0].on,
      rows: rows.map((row) => ({
        ...row,
        words: `${row.description}, ${row.wording}`,
        ...(row.on ? {} : { offNote: "Off for this project" }),
      })),
    },
    receipts: receipts.map((receipt) => ({
      ...receipt,
      durationMs: Math.max(0, Date.parse(receipt.endedAt) - Date.parse(receipt.startedAt)),
    })),
    permissions: permissionLines(approvablePermissions(manifest)),
    update,
    removal: removalOf(manifest),
  };
}

function permissionLines(permissions: readonly string[]): PermissionLine[] {
  return permissions.map((permission) => ({
    permission,
    text: describePermission(permission),
    wide: isWidePermission(permission),
  }));
}

function handlerLines(manifest: Manifest): HandlerLine[] {
  const moments = Object.entries(manifest.lifecycle ?? {}) as [LifecycleMoment, string][];
  return Object.entries(manifest.handlers)
    .sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    .map(([name, handler]) => ({
      name,
      description: handler.description,
      agentTool: handler.agent?.description ?? null,
      moments: moments.filter(([, named]) => named === name).map(([moment]) => moment),
      input: handler.agent?.input ?? null,
      runRefusal: runNowRefusal(manifest, name),
    }));
}

async function publishedTypes(pkg: LoadedPackage): Promise<PublishedType[]> {
  const types: PublishedType[] = [];
  for (const file of pkg.manifest.types ?? []) {
    const unread = (problem: string): PublishedType => ({
      file,
      kind: null,
      title: null,
      description: null,
      definition: null,
      problem,
    });
    const real = await ownFile(pkg, file);
    if (typeof real !== "string") {
      types.push(unread(real.problem));
      continue;
    }
    const text = await readBounded(real, EXTENSION_PAGE_LIMITS.maxTypeFileChars);
    if (text === null) {
      types.push(unread("the file is missing"));
      continue;
    }
    if (text.cut) {
      types.push(
        unread(`the file is longer than ${EXTENSION_PAGE_LIMITS.maxTypeFileChars} characters`),
      );
      continue;
    }
    let definition: unknown;
    try {
      definition = JSON.parse(text.text);
    } catch (error) {
      types.push(unread(`the file is not JSON: ${(error as Error).message}`));
      continue;
    }
    const field = (name: string) => {
      const value = (definition as Record<string, unknown> | null)?.[name];
      return typeof value === "string" ? value : null;
    };
    types.push({
      file,
      kind: field("kind"),
      title: field("title"),
      description: field("description"),
      definition,
    });
  }
  return types;
}

async function promptOf(pkg: LoadedPackage): Promise<ExtensionPage["prompt"]> {
  const file = pkg.manifest.prompt;
  if (!file) return null;
  const real = await ownFile(pkg, file);
  if (typeof real !== "string") return { file, text: "" };
  const read = await readBounded(real, EXTENSION_PAGE_LIMITS.maxPromptChars);
  return { file, text: read?.text ?? "" };
}

/**
 * The real path of a file the manifest names, when it is a regular file of
 * the package's own; else why the page shows nothing of it.
 */
async function ownFile(pkg: LoadedPackage, file: string): Promise<string | { problem: string }> {
  try {
    return await packageFile(pkg.dir, file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { problem: "the file is missing" };
    if (error instanceof InvalidInputError) return { problem: error.message };
    return { problem: `the file cannot be read: ${(error as Error).message}` };
  }
}

/**
 * A text file's start, at most `maxChars` characters (cut with a mark), read
 * without taking in more than it could need; null when it cannot be read.
 */
async function readBounded(
  path: string,
  maxChars: number,
): Promise<{ text: string; cut: boolean } | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return null;
  }
  try {
    // A character is at most four bytes in UTF-8; one byte more tells whether the file goes on.
    const buffer = new Uint8Array(maxChars * 4 + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const n = await file.read(buffer.subarray(filled));
      if (n === null) break;
      filled += n;
    }
    const text = new TextDecoder().decode(buffer.subarray(0, Math.min(filled, maxChars * 4)));
    const more = filled > maxChars * 4;
    if (!more && text.length <= maxChars) return { text, cut: false };
    return { text: cutText(text, maxChars), cut: true };
  } catch {
    return null;
  } finally {
    file.close();
  }
}
