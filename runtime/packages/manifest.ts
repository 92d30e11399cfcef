/**
 * A package's `manifest.json`: its schema, the `Manifest` type, and the checks
 * that turn a malformed manifest into a `ManifestError` listing every problem
 * by field path (`schedule[0].every`, `handlers["issues.poll"].description`).
 *
 * Two passes, both always run so that one mistake never hides another:
 * - the zod schema checks each value where it stands (types, formats, unknown
 *   fields), with messages written here rather than zod's defaults;
 * - `crossFieldIssues` checks what involves more than one value (handlers and
 *   the service module, permissions each feature needs, names that must refer
 *   to declared handlers, duplicates, row counts). It reads the raw document
 *   defensively, because zod skips refinements once any issue is found and
 *   stops checking an array's items once its length check fails.
 *
 * @module
 */

import { z } from "zod";
import { InvalidInputError, ManifestError, type ManifestIssue } from "../errors.ts";
import { duplicateJsonKeys } from "../internal/duplicate_json_keys.ts";
import type { LifecycleMoment } from "../extension_api/service.ts";
import { MANIFEST_LIMITS } from "../limits.ts";
import { agentSchemaIssues } from "./agent_schema.ts";
import { parseEvery } from "./every.ts";
import { inheritedName, PACKAGE_ID_PATTERN, syncOwnIdProblem } from "../internal/package_id.ts";

/** The permissions a manifest may declare besides `net:<host>`. */
export const PERMISSIONS = [
  "background",
  "schedule",
  "work.agent",
  "host.processes",
  "account.folder",
  "account.remote",
] as const;

/**
 * How a device works, as its `modes` list them: `scheduled` (its tasks run on
 * their intervals), `observation` (a task runs when its folder changes),
 * `on-demand` (a person or an agent runs a task), `website` (it is a site a
 * person opens, and nothing runs).
 */
export const DEVICE_MODES = ["scheduled", "observation", "on-demand", "website"] as const;

/** The tasks a device may declare: `sync` reads the source; `analyze` is reserved for later. */
export const TASK_NAMES = ["sync", "analyze"] as const;

/** What a device's account is: a folder a person picks, or a remote host they sign in to. */
export const ACCOUNT_KINDS = ["folder", "remote"] as const;

/** The permission each kind of account needs. */
const ACCOUNT_PERMISSIONS: Record<AccountKind, string> = {
  folder: "account.folder",
  remote: "account.remote",
};

/** Most rows a `schedule` may have. */
export const MAX_SCHEDULE_ROWS = 32;

/** Most programs `host.processes` may declare. */
export const MAX_HOST_PROCESSES = 16;

const ID_PATTERN = PACKAGE_ID_PATTERN;

/** A handler name split into package id and local part. */
const HANDLER_PATTERN = /^([a-z][a-z0-9-]{1,39})\.([a-zA-Z][a-zA-Z0-9_-]{0,63})$/;

/** Semantic Versioning 2.0.0, as given on semver.org. */
const SEMVER_PATTERN =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const PROCESS_ID_PATTERN = /^[a-z][a-z0-9-]*$/;

/** One step of a field path: a field name, a handler name or an array index. */
type PathSegment = string | number;

// ---------------------------------------------------------------------------
// Value checks. Each returns what is wrong with a value, or undefined.

/** A string schema whose problems are described by `problem`. */
function text(problem: (value: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message !== undefined) ctx.addIssue({ code: "custom", message });
  });
}

function idProblem(id: string): string | undefined {
  if (ID_PATTERN.test(id) && inheritedName(id)) {
    return `${show(id)} cannot be an id: every JavaScript object has a property of that name; ` +
      `choose another`;
  }
  if (ID_PATTERN.test(id)) return syncOwnIdProblem(id) ?? undefined;
  if (ID_PATTERN.test(id.toLowerCase())) {
    return `${show(id)} has uppercase letters; ids are lowercase, like ${show(id.toLowerCase())}`;
  }
  return `expected an id like "issues" (2 to 40 characters: a lowercase letter, then lowercase ` +
    `letters, digits or "-"), got ${show(id)}`;
}

function lengthProblem(min: number, max: number) {
  return (value: string): string | undefined => {
    if (value.trim() === "") return `is empty; expected ${min} to ${max} characters`;
    if (value.length > max) return `is ${value.length} characters long; at most ${max} are allowed`;
    return undefined;
  };
}

/**
 * The longest version a manifest may give: it names the folder an archive is
 * unpacked into (`<version>-<digest>`), and a file name is at most 255 bytes.
 */
const MAX_VERSION_CHARS = 64;

function versionProblem(version: string): string | undefined {
  if (version.length > MAX_VERSION_CHARS) {
    return `is ${version.length} characters long; a version is at most ${MAX_VERSION_CHARS}`;
  }
  if (SEMVER_PATTERN.test(version)) return undefined;
  const hint = /^v\d/.test(version) && SEMVER_PATTERN.test(version.slice(1))
    ? ` (without the leading "v")`
    : "";
  return `expected a semver version like "1.2.0", got ${show(version)}${hint}`;
}

/**
 * Paths in a manifest point inside the package. One canonical spelling (no
 * `./`, no `..`, forward slashes) lets the archive reader and the store
 * compare them as strings, and none of them can name a file outside.
 */
function relativePathProblem(path: string): string | undefined {
  const shown = show(path);
  if (path === "") return `is empty; expected a path inside the package like "service/index.js"`;
  if (path.includes("\\")) return `${shown} contains a backslash; use "/" between folders`;
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path)) {
    return `${shown} is absolute; expected a path inside the package like "service/index.js"`;
  }
  const segments = path.split("/");
  if (segments.includes("..")) return `${shown} contains ".."; paths may not leave the package`;
  if (segments.includes(".")) return `${shown} contains "."; write the path without "./" segments`;
  if (segments.includes("")) return `${shown} has an empty segment ("//" or a trailing "/")`;
  if (path.includes("\0")) return `${shown} contains a NUL character`;
  return undefined;
}

function typesPathProblem(path: string): string | undefined {
  const problem = relativePathProblem(path);
  if (problem !== undefined) return problem;
  if (!path.endsWith(".json")) {
    return `${show(path)} does not end in ".json"; record types are JSON files`;
  }
  return undefined;
}

function everyProblem(every: string): string | undefined {
  try {
    parseEvery(every);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidInputError) return error.message;
    throw error;
  }
}

/**
 * A website device's address: `https` only, so what the device view opens is
 * what the manifest says, and without a user or password, which a manifest
 * is no place for.
 */
function websiteProblem(url: string): string | undefined {
  const example = `such as "https://mail.example.com"`;
  const most = MANIFEST_LIMITS.maxDeviceUrlChars;
  if (url.length > most) return `is ${url.length} characters long; at most ${most} are allowed`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${show(url)} is not a URL; expected an https address, ${example}`;
  }
  if (parsed.protocol !== "https:") {
    return `${show(url)} is not https; expected an https address, ${example}`;
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return `${show(url)} holds a user or password; write the address alone, ${example}`;
  }
  return undefined;
}

/**
 * A value of a fixed list, as zod checks it, with the words this file uses:
 * a missing value is left to `fromZod` ("required field … is missing").
 */
function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, {
    error: (issue) => issue.input === undefined ? undefined : oneOfProblem(issue.input, values),
  });
}

function oneOfProblem(value: unknown, values: readonly string[]): string {
  const shown = values.map((v) => show(v));
  const expected = `expected ${shown.slice(0, -1).join(", ")} or ${shown[shown.length - 1]}`;
  const guess = typeof value === "string" ? didYouMean(value, values) : undefined;
  return guess === undefined
    ? `${expected}, got ${show(value)}`
    : `${expected}, got ${show(value)} (did you mean ${show(guess)}?)`;
}

function permissionProblem(permission: string): string | undefined {
  if ((PERMISSIONS as readonly string[]).includes(permission)) return undefined;
  if (permission.startsWith("net:")) return netProblem(permission);
  const guess = didYouMean(permission, PERMISSIONS);
  const expected = `expected one of ${PERMISSIONS.join(", ")} or net:<host>`;
  return guess === undefined
    ? `unknown permission ${show(permission)}; ${expected}`
    : `unknown permission ${show(permission)} (did you mean ${show(guess)}?)`;
}

/**
 * `net:<host>` names exactly one host the host will fetch from for the
 * package: a DNS name or an IPv4 address, with an optional port. Schemes,
 * paths and wildcards are refused rather than guessed at, so the install card
 * shows exactly what is reachable.
 */
function netProblem(permission: string): string | undefined {
  const shown = show(permission);
  const example = "like net:api.example.com";
  const target = permission.slice("net:".length);
  if (target === "") return `${shown} names no host; expected net:<host>, ${example}`;
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(target)) {
    return `${shown} has a scheme; write the host only, ${example}`;
  }
  if (target.includes("*")) {
    return `${shown} has a wildcard; wildcards are not supported, declare each host ${example}`;
  }
  if (/[/?#]/.test(target)) return `${shown} has a path; write the host only, ${example}`;
  let host = target;
  const port = /^(.*):(\d+)$/.exec(target);
  if (port) {
    host = port[1];
    const number = Number(port[2]);
    if (number < 1 || number > 65535 || port[2].startsWith("0")) {
      return `${shown} has port ${port[2]}; expected a port from 1 to 65535`;
    }
  }
  if (host !== host.toLowerCase()) {
    return `${shown} has uppercase letters; write host names in lowercase`;
  }
  if (!isHostname(host) && !isIPv4(host)) {
    return `${shown} does not name a valid host; expected a DNS name or IPv4 address ` +
      `with an optional port, ${example}`;
  }
  // 0.0.0.0/8 as a destination is this machine: the install card would say
  // "may reach 0.0.0.0" of what is in fact the machine's loopback.
  if (isIPv4(host) && host.startsWith("0.")) {
    return `${shown} names an unspecified address, which as a destination is this machine; ` +
      `to reach a server on this machine declare net:127.0.0.1${port ? `:${port[2]}` : ""} instead`;
  }
  return undefined;
}

function isIPv4(host: string): boolean {
  const parts = host.split(".");
  return parts.length === 4 &&
    parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
}

function isHostname(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  // An all-digit last label would make "1.2.3" or "999.1.1.1" pass as a name.
  if (/^\d+$/.test(labels[labels.length - 1])) return false;
  return labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(label));
}

function agentInputProblem(input: Record<string, unknown>): string | undefined {
  if (input.type === "object") return undefined;
  return `expected a JSON Schema whose "type" is "object", got "type": ${
    input.type === undefined ? "(none)" : show(input.type)
  }`;
}

/**
 * MCP takes a tool's structured answer as an object only: an answer of
 * another shape is declared inside one.
 */
function agentOutputProblem(output: Record<string, unknown>): string | undefined {
  if (output.type === "object") return undefined;
  return `expected a JSON Schema whose "type" is "object", got "type": ${
    output.type === undefined ? "(none)" : show(output.type)
  }; MCP takes a tool's structured answer as an object, so return one that holds the ` +
    `value, such as { "items": [ … ] }, and declare that`;
}

// ---------------------------------------------------------------------------
// The schema. Shapes are named so the unknown-field check can suggest fields.

const agentShape = {
  description: text(lengthProblem(1, 1000)),
  input: z.record(z.string(), z.unknown()).superRefine((input, ctx) => {
    const message = agentInputProblem(input);
    if (message !== undefined) ctx.addIssue({ code: "custom", message, path: ["type"] });
    for (const issue of agentSchemaIssues(input)) ctx.addIssue({ code: "custom", ...issue });
  }),
  output: z.record(z.string(), z.unknown()).superRefine((output, ctx) => {
    const message = agentOutputProblem(output);
    if (message !== undefined) ctx.addIssue({ code: "custom", message, path: ["type"] });
    for (const issue of agentSchemaIssues(output)) ctx.addIssue({ code: "custom", ...issue });
  }).optional(),
};

const handlerShape = {
  description: text(lengthProblem(1, 300)),
  agent: z.strictObject(agentShape).optional(),
};

const scheduleShape = {
  handler: z.string(),
  description: text(lengthProblem(1, 300)),
  every: text(everyProblem),
};

const lifecycleShape = {
  installed: z.string().optional(),
  removed: z.string().optional(),
  opened: z.string().optional(),
} satisfies Record<LifecycleMoment, unknown>;

const processShape = {
  id: text((id) =>
    PROCESS_ID_PATTERN.test(id) ? undefined : `expected a process id like "lsp" (a lowercase ` +
      `letter, then lowercase letters, digits or "-"), got ${show(id)}`
  ),
  program: text((program) => program === "" ? `is empty; expected a program to run` : undefined),
  args: z.array(z.string()).optional(),
};

const hostShape = {
  processes: z.array(z.strictObject(processShape)).optional(),
};

const taskShape = {
  handler: z.string(),
  description: text(lengthProblem(1, 300)),
  every: text(everyProblem).optional(),
};

const tasksShape = {
  sync: z.strictObject(taskShape).optional(),
  analyze: z.strictObject(taskShape).optional(),
} satisfies Record<TaskName, unknown>;

const deviceAccountShape = {
  kind: oneOf(ACCOUNT_KINDS),
  description: text(lengthProblem(1, 300)),
};

const deviceShape = {
  name: text(lengthProblem(1, 80)),
  description: text(lengthProblem(1, 300)),
  modes: z.array(oneOf(DEVICE_MODES)).min(1, {
    error: `is empty; expected one or more of ${DEVICE_MODES.map((m) => show(m)).join(", ")}`,
  }),
  account: z.strictObject(deviceAccountShape).optional(),
  tasks: z.strictObject(tasksShape).default({}),
  url: text(websiteProblem).optional(),
};

const manifestShape = {
  id: text(idProblem),
  name: text(lengthProblem(1, 80)),
  version: text(versionProblem),
  description: text(lengthProblem(1, 500)),
  permissions: z.array(text(permissionProblem)).default([]),
  service: text(relativePathProblem).optional(),
  ui: text(relativePathProblem).optional(),
  handlers: z.record(z.string(), z.strictObject(handlerShape)).default({}),
  schedule: z.array(z.strictObject(scheduleShape)).default([]),
  lifecycle: z.strictObject(lifecycleShape).optional(),
  types: z.array(text(typesPathProblem)).optional(),
  prompt: text(relativePathProblem).optional(),
  host: z.strictObject(hostShape).optional(),
  device: z.strictObject(deviceShape).optional(),
};

const manifestSchema = z.strictObject(manifestShape);

/**
 * A validated manifest, with `permissions`, `handlers` and `schedule`
 * defaulted. `docs/manifest.md` says each rule in full.
 */
export interface Manifest {
  /** The package id, such as `issues`: also the prefix of its kinds and handler names. */
  id: string;
  /** The name a person sees, 1 to 80 characters. */
  name: string;
  /** A semver version such as `1.2.0`. */
  version: string;
  /** What the package does, for the install card: 1 to 500 characters. */
  description: string;
  /**
   * What the package asks a person to approve: `background`, `schedule`,
   * `work.agent`, `host.processes` and `net:<host>` entries; `[]` when absent.
   */
  permissions: string[];
  /** The built service module, as a path inside the package such as `service/index.js`. */
  service?: string;
  /** The built screen, as a path inside the package such as `ui/index.js`. */
  ui?: string;
  /** Every handler the service module returns, by name (`issues.poll`); `{}` when absent. */
  handlers: Record<string, ManifestHandler>;
  /** Which handlers the clock calls, and how often; `[]` when absent. */
  schedule: ScheduleRow[];
  /** The handler called at each lifecycle moment, by handler name. */
  lifecycle?: Partial<Record<LifecycleMoment, string>>;
  /** The record types the package publishes, as paths of JSON files such as `types/issue.json`. */
  types?: string[];
  /** What the package tells an agent, as a path inside the package such as `prompt/instructions.md`. */
  prompt?: string;
  /** What the package asks of the host besides handler calls. */
  host?: ManifestHost;
  /** Present when the package is an applet: the source in the world it reads. */
  device?: DeviceDeclaration;
}

/** One entry of `handlers`: what the handler does and, optionally, its agent tool. */
export interface ManifestHandler {
  /** What the handler does, 1 to 300 characters. */
  description: string;
  /** Present when the handler is also a tool agents may call on sync-mcp. */
  agent?: AgentTool;
}

/** How a handler shows up as a tool agents may call. */
export interface AgentTool {
  /** What the tool does, as the agent reads it: 1 to 1000 characters. */
  description: string;
  /** A JSON Schema for the payload; its `type` is `object`. */
  input: Record<string, unknown>;
  /**
   * A JSON Schema for the handler's answer, when it declares one; its `type`
   * is `object`. The tool then lists it as its `outputSchema`, answers with
   * `structuredContent` as well as text, and an answer that does not fit it
   * is a tool error.
   */
  output?: Record<string, unknown>;
}

/** One row of `schedule`: a handler the clock calls at an interval. */
export interface ScheduleRow {
  /** The handler's name; one the manifest declares under `handlers`. */
  handler: string;
  /** What the row does, for the person reading the schedule: 1 to 300 characters. */
  description: string;
  /** The interval, such as `15m`, `1h` or `1d`; never under `1m` (see {@linkcode parseEvery}). */
  every: string;
}

/** The `host` field: what the package asks of the host besides handler calls. */
export interface ManifestHost {
  /** Programs the host may start for the package; at most 16 (`MAX_HOST_PROCESSES`). */
  processes?: HostProcess[];
}

/** One program declared under `host.processes`. */
export interface HostProcess {
  /** The process's id within the package, such as `lsp`; unique in the manifest. */
  id: string;
  /** The program to run. */
  program: string;
  /** Its arguments. */
  args?: string[];
}

/** How a device works; see {@linkcode DEVICE_MODES}. */
export type DeviceMode = (typeof DEVICE_MODES)[number];

/** What a device's account is; see {@linkcode ACCOUNT_KINDS}. */
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** A task a device may declare; see {@linkcode TASK_NAMES}. */
export type TaskName = (typeof TASK_NAMES)[number];

/**
 * The `device` field: the source in the world the package reads (a mailbox, a
 * calendar, a tracker), one per package. Its tasks, account and records share
 * the package's identity in a project.
 */
export interface DeviceDeclaration {
  /** The device's name as a person sees it, 1 to 80 characters, such as `Mail`. */
  name: string;
  /** What it reads, 1 to 300 characters. */
  description: string;
  /**
   * How it works: one or more of `scheduled`, `observation`, `on-demand`, or
   * `website` alone. `observation` needs a folder account; `scheduled` needs
   * `every` on each task.
   */
  modes: DeviceMode[];
  /** What a person connects for it to read; absent for a website device only. */
  account?: DeviceAccountDeclaration;
  /** Its tasks by name: `sync` unless it is a website, `analyze` when declared; `{}` when absent. */
  tasks: Partial<Record<TaskName, TaskDeclaration>>;
  /** A website device's `https` address; present for a website device only. */
  url?: string;
}

/** The account a device reads, as its manifest asks a person for it. */
export interface DeviceAccountDeclaration {
  /**
   * `folder` (a folder a person picks; permission `account.folder`) or
   * `remote` (a host a person gives with a credential; permission `account.remote`).
   */
  kind: AccountKind;
  /** What to connect, in the words the connect dialog shows: 1 to 300 characters. */
  description: string;
}

/** One of a device's tasks: the handler each of its steps calls. */
export interface TaskDeclaration {
  /** A handler the manifest declares under `handlers`. */
  handler: string;
  /** What the task does, 1 to 300 characters. */
  description: string;
  /** Its interval, such as `15m`, as a schedule row's; required on every task of a `scheduled` device. */
  every?: string;
}

// The moments a manifest's `lifecycle` names are the ones the extension API tells a handler.
export type { LifecycleMoment };

// The types above are written out rather than inferred from the schema, so
// that they read as documentation; this line keeps the two the same. A field
// added to one and not the other, or typed differently, fails `deno check`
// here, since `validateManifest` hands out the schema's output as a `Manifest`.
type _SchemaOutputIsManifest = Assert<Same<z.output<typeof manifestSchema>, Manifest>>;

/** Accepts `true` only. */
type Assert<T extends true> = T;

/** True when `A` and `B` are the same type, not merely assignable one way. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

// ---------------------------------------------------------------------------
// Entry points.

/**
 * Parses and validates the text of a `manifest.json`.
 *
 * @param text The file's contents (a leading byte-order mark is ignored).
 * @param where Where the manifest came from, for the error message (a path or package id).
 * @returns The validated manifest with defaults applied.
 * @throws {ManifestError} When the text is not JSON (the issue names the line
 *   and column where it can) or the manifest breaks any rule; `issues` lists
 *   every problem found.
 * @example
 * ```ts
 * const manifest = parseManifest(await Deno.readTextFile(file), file);
 * manifest.schedule[0]?.every; // "15m"
 * ```
 */
export function parseManifest(text: string, where: string): Manifest {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (source.trim() === "") {
    throw new ManifestError(where, [{
      path: "",
      message: "the file is empty; expected a JSON object",
    }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new ManifestError(where, [{ path: "", message: jsonProblem(source, error) }]);
  }
  // What JSON.parse made of a repeated key is not what the file says to a
  // person reading it, so there is nothing sound to validate.
  const repeats = duplicateJsonKeys(source);
  if (repeats.length > 0) {
    throw new ManifestError(
      where,
      repeats.map(({ key, path, at, first }) => ({
        path: "",
        message:
          `the key ${JSON.stringify(key)} appears twice in ${
            path.length === 0 ? "the manifest" : formatPath(path)
          }, at line ${at.line}, column ${at.column} (first at line ${first.line}, column ` +
          `${first.column}); JSON would keep only the last one silently: keep one`,
      })),
    );
  }
  return validateManifest(value, where);
}

/**
 * Validates an already-parsed manifest.
 *
 * @param value The parsed JSON.
 * @param where Where the manifest came from, for the error message.
 * @returns The validated manifest with defaults applied.
 * @throws {ManifestError} Listing every problem, each as `{ path, message }`
 *   with a path like `schedule[0].every` and a message saying what was found
 *   and what was expected.
 * @example
 * ```ts
 * validateManifest({ id: "issues", name: "Issues", version: "1.2" }, "issues");
 * // throws: version: expected a semver version like "1.2.0", got "1.2"
 * //         description: required field "description" is missing
 * ```
 */
export function validateManifest(value: unknown, where: string): Manifest {
  if (!isRecord(value)) {
    throw new ManifestError(where, [{
      path: "",
      message: `expected a JSON object, got ${show(value)}`,
    }]);
  }
  // Counted before anything else, so a manifest of 20,000 handlers is one
  // issue, not one per handler, and costs no more to refuse than to count.
  const handlerCount = isRecord(value.handlers) ? Object.keys(value.handlers).length : 0;
  if (handlerCount > MANIFEST_LIMITS.maxHandlers) {
    throw new ManifestError(where, [{
      path: "handlers",
      message: `declares ${handlerCount} handlers; at most ${MANIFEST_LIMITS.maxHandlers} ` +
        `are allowed`,
    }]);
  }
  const result = manifestSchema.safeParse(value, { reportInput: true });
  const issues: Array<{ path: PathSegment[]; message: string }> = [];
  if (!result.success) {
    for (const issue of result.error.issues) issues.push(...fromZod(issue));
  }
  issues.push(...crossFieldIssues(value));
  if (issues.length > 0 || !result.success) {
    throw new ManifestError(where, sortByField(issues).map(toManifestIssue));
  }
  return result.data;
}

/**
 * The names of the handlers a manifest declares, in declaration order.
 *
 * @param manifest A validated manifest.
 * @returns Handler names such as `["issues.poll", "issues.seed"]`.
 * @example
 * ```ts
 * handlerNames(manifest); // ["issues.poll"]
 * ```
 */
export function handlerNames(manifest: Manifest): string[] {
  return Object.keys(manifest.handlers);
}

/**
 * The hosts a manifest may reach through `net.fetch`, from its `net:<host>`
 * permissions, port included when one was declared.
 *
 * @param manifest A validated manifest.
 * @returns Hosts such as `["api.example.com", "10.0.0.2:8080"]`.
 * @example
 * ```ts
 * declaredHosts(manifest); // ["api.example.com"]
 * ```
 */
export function declaredHosts(manifest: Manifest): string[] {
  return manifest.permissions
    .filter((permission) => permission.startsWith("net:"))
    .map((permission) => permission.slice("net:".length));
}

// ---------------------------------------------------------------------------
// Rules across fields.

/** Every rule that involves more than one value; reads the raw document. */
function crossFieldIssues(raw: Record<string, unknown>): Array<{
  path: PathSegment[];
  message: string;
}> {
  const issues: Array<{ path: PathSegment[]; message: string }> = [];
  const add = (path: PathSegment[], message: string) => issues.push({ path, message });

  const id = typeof raw.id === "string" && ID_PATTERN.test(raw.id) ? raw.id : undefined;
  // When a field has the wrong type the schema already says so; rules that
  // depend on it are skipped rather than reported on a guess.
  const permissionsKnown = raw.permissions === undefined || Array.isArray(raw.permissions);
  const permissions = Array.isArray(raw.permissions) ? raw.permissions : [];
  const handlersKnown = raw.handlers === undefined || isRecord(raw.handlers);
  const handlers = isRecord(raw.handlers) ? Object.keys(raw.handlers) : [];

  const seen = new Map<unknown, number>();
  permissions.forEach((permission, i) => {
    const first = seen.get(permission);
    if (first === undefined) {
      seen.set(permission, i);
    } else {
      add(["permissions", i], `${show(permission)} is listed twice (also permissions[${first}])`);
    }
  });
  const has = (permission: string) => !permissionsKnown || permissions.includes(permission);

  for (const name of handlers) {
    const match = HANDLER_PATTERN.exec(name);
    if (!match) {
      add(
        ["handlers", name],
        `expected a handler name like "${id ?? "issues"}.poll" (the package id, a dot, then a ` +
          `letter and up to 63 letters, digits, "_" or "-"), got ${show(name)}`,
      );
    } else if (id !== undefined && match[1] !== id) {
      add(
        ["handlers", name],
        `${show(name)} does not start with the package id "${id}."; ` +
          `expected a name like "${id}.${match[2]}"`,
      );
    }
  }

  if (raw.service === undefined && handlers.length > 0) {
    add(
      ["service"],
      `handlers are declared but no service module is named; expected a path like "service/index.js"`,
    );
  }
  if (raw.service !== undefined && handlersKnown && handlers.length === 0) {
    add(
      ["handlers"],
      `a service module is named but no handlers are declared; declare each handler it returns`,
    );
  }
  if (raw.service !== undefined && !has("background")) {
    add(["permissions"], `a service module needs the background permission`);
  }

  const undeclared = (name: string) =>
    `${show(name)} is not a declared handler; ` +
    (handlers.length === 0
      ? "no handlers are declared"
      : `declared: ${handlers.map((h) => show(h)).join(", ")}`);

  if (Array.isArray(raw.schedule)) {
    if (raw.schedule.length > MAX_SCHEDULE_ROWS) {
      add(
        ["schedule"],
        `has ${raw.schedule.length} rows; at most ${MAX_SCHEDULE_ROWS} are allowed`,
      );
    }
    if (raw.schedule.length > 0 && !has("schedule")) {
      add(["permissions"], `a schedule needs the schedule permission`);
    }
    raw.schedule.forEach((row, i) => {
      if (handlersKnown && isRecord(row) && typeof row.handler === "string") {
        if (!handlers.includes(row.handler)) {
          add(["schedule", i, "handler"], undeclared(row.handler));
        }
      }
    });
  }

  if (isRecord(raw.lifecycle) && handlersKnown) {
    for (const moment of Object.keys(lifecycleShape)) {
      const name = raw.lifecycle[moment];
      if (typeof name === "string" && !handlers.includes(name)) {
        add(["lifecycle", moment], undeclared(name));
      }
    }
  }

  if (isRecord(raw.host) && Array.isArray(raw.host.processes)) {
    const processes: unknown[] = raw.host.processes;
    if (processes.length > MAX_HOST_PROCESSES) {
      add(
        ["host", "processes"],
        `declares ${processes.length} processes; at most ${MAX_HOST_PROCESSES} are allowed`,
      );
    }
    if (processes.length > 0 && !has("host.processes")) {
      add(
        ["permissions"],
        `host.processes are declared, which needs the host.processes permission`,
      );
    }
    const ids = new Map<string, number>();
    processes.forEach((process, i) => {
      if (!isRecord(process) || typeof process.id !== "string") return;
      const first = ids.get(process.id);
      if (first === undefined) {
        ids.set(process.id, i);
      } else {
        add(
          ["host", "processes", i, "id"],
          `process id ${show(process.id)} is used twice (also host.processes[${first}].id)`,
        );
      }
    });
  }

  if (isRecord(raw.device)) {
    issues.push(...deviceIssues(raw.device, { has, handlersKnown, handlers, undeclared }));
  }

  return issues;
}

/** What {@linkcode deviceIssues} needs to know of the rest of the manifest. */
interface DeviceContext {
  /** Whether the manifest declares a permission (true while `permissions` is malformed). */
  has: (permission: string) => boolean;
  /** Whether `handlers` is well-formed enough to say a name is not declared. */
  handlersKnown: boolean;
  /** The declared handler names. */
  handlers: string[];
  /** The message for a name that is not a declared handler. */
  undeclared: (name: string) => string;
}

/** The rules of `device` that involve more than one value; reads the raw document. */
function deviceIssues(
  device: Record<string, unknown>,
  context: DeviceContext,
): Array<{ path: PathSegment[]; message: string }> {
  const issues: Array<{ path: PathSegment[]; message: string }> = [];
  const add = (path: PathSegment[], message: string) =>
    issues.push({ path: ["device", ...path], message });

  // Modes the rules can go by: only when `modes` is a list; the schema says what else is wrong.
  const modes = Array.isArray(device.modes) ? device.modes : undefined;
  const firstAt = new Map<unknown, number>();
  modes?.forEach((mode, i) => {
    const first = firstAt.get(mode);
    if (first === undefined) firstAt.set(mode, i);
    else add(["modes", i], `${show(mode)} is listed twice (also device.modes[${first}])`);
  });
  const website = firstAt.has("website");
  const account = isRecord(device.account) ? device.account : undefined;
  const tasks = isRecord(device.tasks) ? device.tasks : undefined;

  if (website) {
    if (firstAt.size > 1) {
      add(
        ["modes"],
        `"website" stands alone: a website device is a site a person opens, and nothing of it ` +
          `runs; list "website" alone, or drop it`,
      );
    }
    if (device.url === undefined) {
      add(
        ["url"],
        `required field "url" is missing: a website device opens at its https address, ` +
          `such as "https://mail.example.com"`,
      );
    }
    if (device.account !== undefined) {
      add(["account"], `a website device has no account to read; remove "account"`);
    }
    if (device.tasks !== undefined) {
      add(["tasks"], `a website device runs no tasks; remove "tasks"`);
    }
  } else if (modes !== undefined && modes.length > 0) {
    if (device.url !== undefined) {
      add(
        ["url"],
        `only a website device has a url; add "website" to modes alone, or remove "url"`,
      );
    }
    if (device.account === undefined) {
      add(
        ["account"],
        `required field "account" is missing: a device reads an account a person connects, ` +
          `{ "kind": "folder" | "remote", "description": "…" }`,
      );
    }
    if (device.tasks === undefined) {
      add(
        ["tasks"],
        `required field "tasks" is missing: a device reads its source with a sync task, ` +
          `{ "sync": { "handler": "…", "description": "…" } }`,
      );
    } else if (tasks !== undefined && tasks.sync === undefined) {
      add(
        ["tasks", "sync"],
        `required field "sync" is missing: a device reads its source with a sync task, ` +
          `{ "handler": "…", "description": "…" }`,
      );
    }
  }

  if (account !== undefined && typeof account.kind === "string") {
    const permission = Object.hasOwn(ACCOUNT_PERMISSIONS, account.kind)
      ? ACCOUNT_PERMISSIONS[account.kind as AccountKind]
      : undefined;
    if (permission !== undefined && !context.has(permission)) {
      issues.push({
        path: ["permissions"],
        message: `a ${account.kind} account (device.account) needs the ${permission} permission`,
      });
    }
    const observation = modes?.indexOf("observation") ?? -1;
    if (observation !== -1 && account.kind !== "folder") {
      add(
        ["modes", observation],
        `"observation" watches a folder for changes, and this device's account is ` +
          `${show(account.kind)}; use a folder account, or drop "observation"`,
      );
    }
  }

  if (tasks !== undefined) {
    for (const name of TASK_NAMES) {
      const task = tasks[name];
      if (!isRecord(task)) continue;
      if (
        context.handlersKnown && typeof task.handler === "string" &&
        !context.handlers.includes(task.handler)
      ) {
        add(["tasks", name, "handler"], context.undeclared(task.handler));
      }
      if (firstAt.has("scheduled") && task.every === undefined) {
        add(
          ["tasks", name, "every"],
          `required field "every" is missing: a scheduled device runs each task on its ` +
            `interval, such as "15m"`,
        );
      }
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------
// From zod's issues to ours.

/** Known fields at each place an object sits, for "did you mean". */
function knownFields(path: PathSegment[]): readonly string[] {
  const at = path.map((segment) => typeof segment === "number" ? "[]" : segment);
  if (at[0] === "handlers" && at.length >= 2) at[1] = "*";
  switch (at.join("/")) {
    case "":
      return Object.keys(manifestShape);
    case "handlers/*":
      return Object.keys(handlerShape);
    case "handlers/*/agent":
      return Object.keys(agentShape);
    case "schedule/[]":
      return Object.keys(scheduleShape);
    case "lifecycle":
      return Object.keys(lifecycleShape);
    case "host":
      return Object.keys(hostShape);
    case "host/processes/[]":
      return Object.keys(processShape);
    case "device":
      return Object.keys(deviceShape);
    case "device/account":
      return Object.keys(deviceAccountShape);
    case "device/tasks":
      return Object.keys(tasksShape);
    case "device/tasks/sync":
    case "device/tasks/analyze":
      return Object.keys(taskShape);
    default:
      return [];
  }
}

function fromZod(issue: z.core.$ZodIssue): Array<{ path: PathSegment[]; message: string }> {
  const path = issue.path.filter((s): s is PathSegment => typeof s !== "symbol");
  switch (issue.code) {
    case "unrecognized_keys": {
      const known = knownFields(path);
      return issue.keys.map((key) => {
        const guess = didYouMean(key, known);
        const message = guess !== undefined
          ? `unknown field ${show(key)} (did you mean ${show(guess)}?)`
          : `unknown field ${show(key)}; expected ${known.map((k) => show(k)).join(", ")}`;
        return { path: [...path, key], message };
      });
    }
    case "invalid_value": {
      const last = path[path.length - 1];
      if (issue.input === undefined && typeof last === "string") {
        return [{ path, message: `required field ${show(last)} is missing` }];
      }
      return [{ path, message: issue.message }];
    }
    case "invalid_type": {
      const last = path[path.length - 1];
      if (issue.input === undefined && typeof last === "string") {
        return [{ path, message: `required field ${show(last)} is missing` }];
      }
      return [{
        path,
        message: `expected ${typeWording(issue.expected)}, got ${show(issue.input)}`,
      }];
    }
    default:
      return [{ path, message: issue.message }];
  }
}

function typeWording(expected: string): string {
  switch (expected) {
    case "record":
    case "object":
      return "an object";
    case "array":
      return "an array";
    default:
      return `a ${expected}`;
  }
}

function toManifestIssue(issue: { path: PathSegment[]; message: string }): ManifestIssue {
  return { path: formatPath(issue.path), message: issue.message };
}

/** `["handlers", "issues.poll", "agent"]` → `handlers["issues.poll"].agent`. */
function formatPath(path: PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    // Handler names hold dots, so they are always written in brackets.
    const isHandlerName = path[0] === "handlers" && out === "handlers";
    if (typeof segment === "number") out += `[${segment}]`;
    else if (isHandlerName) out += `[${JSON.stringify(segment)}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) {
      out += out === "" ? segment : `.${segment}`;
    } else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Issues in the order fields appear in a manifest, so a list reads top to bottom. */
function sortByField<T extends { path: PathSegment[] }>(issues: T[]): T[] {
  const order = Object.keys(manifestShape);
  const rank = (issue: T) => {
    if (issue.path.length === 0) return -1;
    const index = order.indexOf(String(issue.path[0]));
    return index === -1 ? order.length : index;
  };
  return issues
    .map((issue, i) => ({ issue, i }))
    .sort((a, b) => rank(a.issue) - rank(b.issue) || a.i - b.i)
    .map(({ issue }) => issue);
}

// ---------------------------------------------------------------------------
// Small helpers.

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A value as a message shows it: strings quoted, containers by kind. */
function show(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  }
  return String(value);
}

/** The closest candidate within a small edit distance, compared without case. */
function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const allowed = Math.min(2, Math.floor(Math.max(word.length, 3) / 3));
  return bestDistance <= allowed ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * A JSON syntax error as "at line L, column C: expected …, found …". The
 * engine's own messages give no position for the commonest mistakes, so the
 * text is scanned again here to find where it stops being JSON.
 */
function jsonProblem(source: string, error: unknown): string {
  const found = findJsonError(source);
  if (found === undefined) {
    return `not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  const before = source.slice(0, found.offset).split("\n");
  const line = before.length;
  const column = before[before.length - 1].length + 1;
  const what = found.offset >= source.length
    ? "the end of the text"
    : JSON.stringify(String.fromCodePoint(source.codePointAt(found.offset)!));
  return `not valid JSON at line ${line}, column ${column}: expected ${found.expected}, found ${what}`;
}

/** Thrown inside `findJsonError` to unwind from wherever the grammar breaks. */
class JsonStop {
  constructor(readonly offset: number, readonly expected: string) {}
}

/** Where `source` first breaks the JSON grammar, and what was expected there. */
function findJsonError(source: string): { offset: number; expected: string } | undefined {
  let at = 0;
  const fail = (expected: string): never => {
    throw new JsonStop(at, expected);
  };
  const space = () => {
    while (at < source.length && " \t\n\r".includes(source[at])) at++;
  };
  const string = () => {
    at++; // the opening quote
    while (true) {
      if (at >= source.length) fail(`a closing '"'`);
      const c = source[at];
      if (c === '"') {
        at++;
        return;
      }
      if (c < " ") fail("a character allowed in a string (control characters must be escaped)");
      if (c === "\\") {
        at++;
        if (source[at] === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(at + 1, at + 5))) at += 5;
        else if (at < source.length && `"\\/bfnrt`.includes(source[at])) at++;
        else fail(`an escape such as \\n, \\" or \\u00e9`);
      } else at++;
    }
  };
  const value = (expected: string) => {
    space();
    const c = source[at];
    if (c === "{") {
      at++;
      space();
      if (source[at] === "}") {
        at++;
        return;
      }
      while (true) {
        space();
        if (source[at] !== '"') fail(`a property name in double quotes`);
        string();
        space();
        if (source[at] !== ":") fail(`":" after the property name`);
        at++;
        value("a value");
        space();
        if (source[at] === "}") {
          at++;
          return;
        }
        if (source[at] !== ",") fail(`"," or "}"`);
        at++;
      }
    }
    if (c === "[") {
      at++;
      space();
      if (source[at] === "]") {
        at++;
        return;
      }
      while (true) {
        value("a value");
        space();
        if (source[at] === "]") {
          at++;
          return;
        }
        if (source[at] !== ",") fail(`"," or "]"`);
        at++;
      }
    }
    if (c === '"') return string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(
      source.slice(at, at + 400),
    );
    if (literal) {
      at += literal[0].length;
      return;
    }
    fail(expected);
  };
  try {
    value("a JSON object");
    space();
    if (at < source.length) fail("the end of the text");
  } catch (stop) {
    if (stop instanceof JsonStop) return { offset: stop.offset, expected: stop.expected };
    throw stop;
  }
  return undefined;
}
