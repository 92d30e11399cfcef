/**
 * A package's screen, as the app serves it and answers it: which built file
 * is the screen of the package serving a project now, and what the screen
 * may read — the project's memory as the package's handlers read it, and the
 * hosts its manifest declares, through the host's `net.fetch` rules. A
 * screen calls its handlers through the host like any caller
 * (`HandlerCaller.callHandler`, occasion `extension`).
 *
 * @module
 */
import { InvalidInputError, NotFoundError } from "../errors.ts";
import type {
  NetResponse,
  RecordPage,
  RecordQuery,
  RecordSummary,
} from "../extension_api/service.ts";
import { netFetch, type ResolveHost } from "../host/mod.ts";
import type { HandlerLimits } from "../limits.ts";
import {
  MemoryAccess,
  MemoryTransaction,
  readGeneration,
  type RecordCursors,
} from "../memory/mod.ts";
import {
  declaredHosts,
  isPackageId,
  type LoadedPackage,
  notAPackageId,
  packageFile,
  readableKinds,
  readServingEntries,
  servingPackage,
} from "../packages/mod.ts";
import { readDeclaredIds, resolveProjectDir } from "../projects/mod.ts";

/** The screen of a package serving a project now. */
export interface ServingScreen {
  /** The project's resolved folder. */
  project: string;
  /** The package that serves it, as loaded now. */
  package: LoadedPackage;
  /** The absolute path of its built screen module, the file the manifest's `ui` names. */
  module: string;
  /** The absolute path of the style sheet built beside it (`ui/index.css`), when there is one. */
  styles: string | null;
}

/**
 * The screen of the package that serves `id` in the project now: only an
 * installed, approved package's, only the file its manifest names, and only
 * when that file really is inside the package's folder (a link out of it is
 * refused).
 *
 * @param kv The installation's KV.
 * @param projectDir The project folder.
 * @param id The package id.
 * @throws {InvalidInputError} when `id` is not a package id.
 * @throws {NotFoundError} when the project, the package, its screen or the built file is missing.
 * @throws {ApprovalRequiredError} when nothing approved serves the package in the project.
 */
export async function servingScreen(
  kv: Deno.Kv,
  projectDir: string,
  id: string,
): Promise<ServingScreen> {
  if (!isPackageId(id)) throw new InvalidInputError(notAPackageId(id));
  const project = await resolveProjectDir(projectDir);
  const declaredIds = await readDeclaredIds(project);
  const pkg = await servingPackage(kv, project, id, { declaredIds });
  const ui = pkg.manifest.ui;
  if (ui === undefined) {
    throw new NotFoundError(
      `${id} has no screen: its manifest names no ui file (a screen is src/index.tsx, built ` +
        `into the file "ui" names)`,
    );
  }
  const module = await fileInside(pkg.dir, ui);
  if (module === null) {
    throw new NotFoundError(
      `${id}'s screen ${ui} is not in its folder ${pkg.dir}; build it (deno task build) and ` +
        `install it again`,
    );
  }
  const css = ui.endsWith(".js") ? `${ui.slice(0, -".js".length)}.css` : null;
  return { project, package: pkg, module, styles: css ? await fileInside(pkg.dir, css) : null };
}

/** The real path of `path` under `dir` when it is a regular file of the package's own; null otherwise. */
async function fileInside(dir: string, path: string): Promise<string | null> {
  try {
    return await packageFile(dir, path);
  } catch {
    return null;
  }
}

/** What a screen's reads need of the host. */
export interface ScreenReadHost {
  /** The installation's KV. */
  readonly kv: Deno.Kv;
  /** The project's memory KV, opened once per process. */
  projectMemory(project: string): Promise<Deno.Kv>;
}

/** Which read of memory a screen asks for, and its argument. */
export type ScreenMemoryRead =
  | { read: "list"; query: RecordQuery }
  | { read: "record"; key: string }
  | { read: "content"; key: string };

/** Options for {@linkcode readScreenMemory}. */
export interface ScreenMemoryOptions {
  /** Seals listing cursors, as the handlers' are sealed. */
  cursors: RecordCursors;
}

/**
 * Reads the project's memory for a package's screen, with the rules its
 * handlers read under: its own kinds and the kinds the project's serving
 * packages publish, the same pages, cursors and limits. Nothing is written.
 *
 * @param host The installation and the project memories.
 * @param projectDir The project folder.
 * @param id The package whose screen reads.
 * @param request Which read, and its query or key.
 * @param options The cursors' seal.
 * @throws {MemoryAccessError} when the kind may not be read.
 * @throws {InvalidInputError} for a malformed query or key.
 * @throws {NotFoundError | ApprovalRequiredError} when the package does not serve the project.
 */
export async function readScreenMemory(
  host: ScreenReadHost,
  projectDir: string,
  id: string,
  request: ScreenMemoryRead,
  options: ScreenMemoryOptions,
): Promise<RecordPage | RecordSummary | string | null> {
  const { project, package: pkg } = await servingScreen(host.kv, projectDir, id);
  const access = new MemoryAccess(id, await screenReadableKinds(host.kv, project, pkg));
  const memory = await host.projectMemory(project);
  const transaction = new MemoryTransaction(memory, {
    packageId: id,
    generation: await readGeneration(memory, id),
    project,
    cursors: options.cursors,
  });
  try {
    switch (request.read) {
      case "list":
        if (request.query.kind !== undefined) access.assertReadKind(String(request.query.kind));
        return await transaction.list(request.query, {
          readable: (kind) => access.canRead(kind),
        });
      case "record":
        access.assertReadKey(request.key);
        return await transaction.record(request.key);
      case "content":
        access.assertReadKey(request.key);
        return await transaction.content(request.key);
    }
  } finally {
    transaction.discard();
  }
}

/** The kinds the package may read: its own and those every package serving the project publishes. */
async function screenReadableKinds(kv: Deno.Kv, project: string, calling: LoadedPackage) {
  const declaredIds = await readDeclaredIds(project);
  const serving = await readServingEntries(kv, project, declaredIds);
  return await readableKinds(kv, project, calling, declaredIds, serving);
}

/** Options for {@linkcode screenNetFetch}. */
export interface ScreenNetOptions {
  /** The limits a handler's `net.fetch` runs under; a screen's runs under the same. */
  limits: HandlerLimits;
  /** Performs the request; the global `fetch` when absent. */
  fetch?: typeof fetch;
  /** Finds the addresses of a declared name; the system resolver when absent. */
  resolve?: ResolveHost;
}

/**
 * Performs a screen's `net.fetch` from the host: only to the hosts the
 * serving package declares as `net:<host>`, with a handler's timeout and
 * size caps, redirects not followed.
 *
 * @param kv The installation's KV.
 * @param projectDir The project folder.
 * @param id The package whose screen asks.
 * @param request `{ url, method?, headers?, body? }`, or a URL string.
 * @param options The limits and what performs the request.
 * @throws {PermissionDeniedError} when the URL's host is not declared.
 * @throws {InvalidInputError} for a malformed request, or a host that did not answer in time.
 * @throws {PayloadTooLargeError} past the size caps.
 */
export async function screenNetFetch(
  kv: Deno.Kv,
  projectDir: string,
  id: string,
  request: unknown,
  options: ScreenNetOptions,
): Promise<NetResponse> {
  const { package: pkg } = await servingScreen(kv, projectDir, id);
  return await netFetch(request, {
    packageId: id,
    hosts: declaredHosts(pkg.manifest),
    timeoutMs: Math.min(options.limits.fetchTimeoutMs, options.limits.timeoutMs),
    maxBytes: options.limits.maxFetchBytes,
    maxHeaderBytes: options.limits.maxFetchHeaderBytes,
    fetch: options.fetch,
    resolve: options.resolve,
  });
}
