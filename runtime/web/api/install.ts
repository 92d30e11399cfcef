/**
 * Installing from the web: `POST /api/install/card` answers the install card
 * (what the package is, what it runs on the clock, what it asks, what check
 * finds) without installing; `POST /api/install` installs, as `sync install`
 * does, and says what it says. The source is the absolute path of a package
 * folder or archive on this machine, or `{ "upload": "<id>" }` for an archive
 * sent to `POST /api/uploads`.
 *
 * @module
 */
import { isAbsolute } from "node:path";
import { Hono } from "hono";
import type { Context } from "hono";
import { InvalidInputError } from "../../errors.ts";
import {
  type InstallCardHost,
  type InstallHost,
  installPackage,
  installReport,
  type InstallResult,
  type LifecycleRun,
  readInstallCard,
} from "../../lifecycle/mod.ts";
import { projectPath } from "../../projects/mod.ts";
import type { UploadStore } from "../upload_store.ts";
import { jsonObjectBody } from "../json_object_body.ts";

/** Where a package is installed from: an absolute path on this machine, or an upload. */
export type InstallSource = string | { upload: string };

/** The body of `POST /api/install/card`. */
export interface InstallCardRequest {
  /** The project folder (absolute). */
  project: string;
  /** The package folder or archive. */
  source: InstallSource;
}

/** The body of `POST /api/install`. */
export interface InstallRequest extends InstallCardRequest {
  /** A person approved the permissions the card showed; without it, an install that needs approval is refused. */
  approve?: boolean;
  /**
   * A person agreed to replace the package installed under the same id (the
   * card's `replaces`); without it, such an install is refused.
   */
  replace?: boolean;
}

/** What `POST /api/install` answers. */
export interface InstallAnswer {
  /** The project's resolved folder. */
  project: string;
  /** The package id. */
  id: string;
  /** The version installed. */
  version: string;
  /** `folder`: linked to the folder; `archive`: unpacked into the store. */
  from: "folder" | "archive";
  /** The folder its files are read from. */
  dir: string;
  /** Permissions this install approved (empty when nothing new was asked). */
  approved: string[];
  /** Its `installed` handler, when it has one (it succeeded). */
  installed: Omit<LifecycleRun, "failure"> | null;
  /** What `sync install` prints, line by line. */
  lines: string[];
}

/**
 * The install routes, to mount at `/api`.
 *
 * @param host What reads cards, and stores, checks and approves packages.
 * @param uploads The uploads `{ upload: id }` names.
 * @returns A Hono app for `app.route()`. Internal: its type is Hono's.
 * @internal
 */
export function installRoutes(
  host: InstallHost & InstallCardHost,
  uploads: UploadStore,
): Hono {
  const routes = new Hono();
  routes.post("/install/card", async (c) => {
    const body = await readBody(c, false);
    const source = await sourcePath(body.source, uploads);
    const card = await sayingUpload(
      body.source,
      source,
      () => readInstallCard(host, source, body.project),
    );
    return c.json(card);
  });
  routes.post("/install", async (c) => {
    const body = await readBody(c, true);
    const source = await sourcePath(body.source, uploads);
    const result = await sayingUpload(
      body.source,
      source,
      () =>
        installPackage(host, source, body.project, {
          approve: body.approve === true,
          replace: body.replace === true,
        }),
    );
    // Unpacked into the store now: the upload has done its work.
    if (typeof body.source === "object") await uploads.remove(body.source.upload);
    return c.json(installAnswer(result));
  });
  return routes;
}

/**
 * What an install (or an approval, which finishes one) answers: what was
 * installed from where, what was approved, how its `installed` handler ran,
 * and the lines `sync install` prints.
 *
 * @param result What the install did.
 * @internal
 */
export function installAnswer(result: InstallResult): InstallAnswer {
  const { manifest, ref } = result.package;
  return {
    project: result.project,
    id: manifest.id,
    version: manifest.version,
    from: ref.source,
    dir: ref.dir,
    approved: result.approved,
    // The thrown error stays here; its name and message are on the run.
    installed: result.installed && (({ failure: _, ...run }) => run)(result.installed),
    lines: installReport(result),
  };
}

/** The body, checked; each wrong field is named. */
async function readBody(c: Context, install: boolean): Promise<InstallRequest> {
  const shape = install
    ? '{ "project": "<folder>", "source": "<folder or archive>" | { "upload": "<id>" }, ' +
      '"approve": true, "replace": true }'
    : '{ "project": "<folder>", "source": "<folder or archive>" | { "upload": "<id>" } }';
  const { project, source, approve, replace } = await jsonObjectBody(c, shape);
  const path = projectPath(project);
  let checked: InstallSource;
  if (typeof source === "string") {
    // The app has no working folder of its own a relative path could mean.
    if (!isAbsolute(source)) {
      throw new InvalidInputError(
        `source: ${JSON.stringify(source)} is relative; give the package folder's or ` +
          `archive's absolute path, or { "upload": "<id>" }`,
      );
    }
    checked = source;
  } else if (
    typeof source === "object" && source !== null &&
    typeof (source as { upload?: unknown }).upload === "string"
  ) {
    checked = { upload: (source as { upload: string }).upload };
  } else {
    throw new InvalidInputError(
      `source: expected an absolute path or { "upload": "<id>" }, got ${JSON.stringify(source)}`,
    );
  }
  if (install && approve !== undefined && typeof approve !== "boolean") {
    throw new InvalidInputError(
      `approve: expected true (a person approved) or false, got ${JSON.stringify(approve)}`,
    );
  }
  if (install && replace !== undefined && typeof replace !== "boolean") {
    throw new InvalidInputError(
      `replace: expected true (a person agreed to replace the installed package) or false, ` +
        `got ${JSON.stringify(replace)}`,
    );
  }
  return {
    project: path,
    source: checked,
    ...(install ? { approve: approve as boolean, replace: replace as boolean } : {}),
  };
}

/** The file or folder a source names. */
function sourcePath(source: InstallSource, uploads: UploadStore): Promise<string> {
  return typeof source === "string" ? Promise.resolve(source) : uploads.path(source.upload);
}

/**
 * Runs `action`; a refusal that names an upload's file in the cache names it
 * "the uploaded archive" instead, the words of the person who sent it.
 */
async function sayingUpload<T>(
  source: InstallSource,
  path: string,
  action: () => Promise<T>,
): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (typeof source === "object" && error instanceof Error) {
      error.message = error.message.replaceAll(path, "the uploaded archive");
    }
    throw error;
  }
}
