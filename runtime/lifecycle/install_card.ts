/**
 * The install card: what a person is shown before installing a package into
 * a project, read without installing anything. It says what the package is,
 * what runs on the clock (in the words `sync schedule` uses), the permissions
 * to approve (in the words `sync install` prints; for an update, only those
 * it adds; the wide ones marked), the package it would replace under the same
 * id, and every problem check finds. A folder is checked as `deno task check`
 * checks it — built first when it has sources, the same problems in the same
 * order — so reading the card again after an edit rebuilds it. An archive is
 * checked as install checks it, unpacked into a staging folder that is
 * removed before the card is answered; nothing is stored or approved.
 *
 * @module
 */
import {
  checkBuiltPackage,
  checkPackage,
  type CheckProblem,
  formatProblem,
} from "../author/mod.ts";
import { ManifestError } from "../errors.ts";
import type { IsolatePool } from "../isolate/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import {
  approvablePermissions,
  describeEvery,
  describePermission,
  isWidePermission,
  type Manifest,
  readApproval,
  readManifestAt,
  widenedPermissions,
  withPackageFiles,
} from "../packages/mod.ts";
import { resolveProjectDir } from "../projects/mod.ts";
import { findReplaced, type Replaced } from "./replacement.ts";

/** What reading an install card needs of the host. */
export interface InstallCardHost {
  /** The installation's KV: the project's approval. */
  readonly kv: Deno.Kv;
  /** The installation folder, under whose store an archive is staged. */
  readonly home: string;
  /** The isolates check runs the service module in. */
  readonly pool: IsolatePool;
  /** The limits check runs it under. */
  readonly limits: HandlerLimits;
}

/** One permission as the card shows it. */
export interface CardPermission {
  /** As the manifest declares it, such as `net:api.example.com`. */
  permission: string;
  /** What it allows, in the words `sync install` prints. */
  text: string;
  /** The line `sync install` prints: `net:api.example.com — may reach …`. */
  line: string;
  /**
   * True for a permission that reaches past what the host guards (a program
   * run with full user access, a server on this machine or the local
   * network): the card sets it apart, and approving is never its default.
   */
  wide: boolean;
}

/** One row the clock would run, as `sync schedule` words it. */
export interface CardScheduleRow {
  /** The handler's name. */
  handler: string;
  /** What the row does, as the package wrote it. */
  description: string;
  /** The interval as the manifest writes it, like `1h`. */
  every: string;
  /** The interval as the host says it, like "every hour". */
  wording: string;
}

/** One problem check found: as check prints it, and its parts. */
export interface CardProblem {
  /** `file:line:col  message` and the indented hint, as check prints it. */
  text: string;
  /** The problem's parts. */
  problem: CheckProblem;
}

/** What the card says of the package, when its manifest can be read. */
export interface CardPackage {
  /** The package id. */
  id: string;
  /** Its name, as people see it. */
  name: string;
  /** Its version. */
  version: string;
  /** What it does, as the package says it. */
  description: string;
  /** Its handlers and what each does. */
  handlers: { name: string; description: string }[];
  /** What runs on the clock. */
  schedule: CardScheduleRow[];
  /**
   * Every permission this version asks for, then each program it declares under
   * `host.processes` (`process:<id> <command line>`, full user access).
   */
  asks: CardPermission[];
}

/** The install card. */
export interface InstallCard {
  /** The project's resolved folder. */
  project: string;
  /** The package, or null when its manifest cannot be read (the problems say why). */
  package: CardPackage | null;
  /**
   * `new`: not installed in this project, everything it asks is to approve;
   * `widens`: an update asking for more than was approved; `approved`:
   * nothing new to approve. Null without a readable manifest.
   */
  approval: "new" | "widens" | "approved" | null;
  /** The version this project approved, serving until a person approves this one; null when none. */
  approvedVersion: string | null;
  /** What installing approves: all it asks when new, only what is new for an update. */
  permissions: CardPermission[];
  /**
   * The package installing this one would replace under the same id — from
   * another source, or a newer version — which a person must agree to
   * (`"replace": true`); null when nothing would be replaced.
   */
  replaces: Replaced | null;
  /**
   * Every problem check finds, as `deno task check` finds them for a folder
   * (built first); install refuses while there is one.
   */
  problems: CardProblem[];
  /** True when install would take it (no problems); with approval still to give unless `approved`. */
  installable: boolean;
}

/**
 * Reads the install card of a package for a project, without installing.
 *
 * @param host The installation, and what check runs in.
 * @param source A package folder or archive (absolute).
 * @param projectDir The project folder.
 * @throws {NotFoundError} when the project or the source does not exist.
 * @throws {ArchiveError} for a hostile or broken archive.
 */
export async function readInstallCard(
  host: InstallCardHost,
  source: string,
  projectDir: string,
): Promise<InstallCard> {
  const project = await resolveProjectDir(projectDir);
  const folder = (await Deno.stat(source).catch(() => null))?.isDirectory ?? false;
  const { manifest, problems, dir: read } = await withPackageFiles(
    source,
    { home: host.home },
    async (dir) => {
      const options = { pool: host.pool, limits: host.limits };
      // A folder is checked as `deno task check` checks it, its sources built
      // first; an archive as install checks it.
      const problems = folder
        ? (await checkPackage(dir, options)).problems
        : await checkBuiltPackage(dir, options);
      let manifest: Manifest | null = null;
      try {
        manifest = await readManifestAt(dir);
      } catch (error) {
        if (!(error instanceof ManifestError)) throw error;
      }
      return { manifest, problems, dir };
    },
  );
  const card: InstallCard = {
    project,
    package: null,
    approval: null,
    approvedVersion: null,
    permissions: [],
    replaces: null,
    problems: problems.map((problem) => ({ text: formatProblem(problem), problem })),
    installable: problems.length === 0 && manifest !== null,
  };
  if (!manifest) return card;
  const approval = await readApproval(host.kv, project, manifest.id);
  const requested = approvablePermissions(manifest);
  const widened = widenedPermissions(approval?.permissions ?? [], requested);
  const asks = requested.map(cardPermission);
  card.package = {
    id: manifest.id,
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    handlers: Object.entries(manifest.handlers).map(([name, h]) => ({
      name,
      description: h.description,
    })),
    schedule: manifest.schedule.map((row) => ({
      handler: row.handler,
      description: row.description,
      every: row.every,
      wording: describeEvery(row.every),
    })),
    asks,
  };
  card.replaces = await findReplaced(host.kv, project, {
    id: manifest.id,
    version: manifest.version,
    source: folder ? "folder" : "archive",
    folder: folder ? read : undefined,
  });
  card.approvedVersion = approval?.version ?? null;
  card.approval = !approval ? "new" : widened.length > 0 ? "widens" : "approved";
  card.permissions = !approval ? asks : widened.map(cardPermission);
  return card;
}

function cardPermission(permission: string): CardPermission {
  const text = describePermission(permission);
  return { permission, text, line: `${permission} — ${text}`, wide: isWidePermission(permission) };
}
