/**
 * The manifest and the files it names, as `deno task check` reports them: each
 * problem the manifest validator finds becomes a problem at the line of its
 * field in `manifest.json`, and each named file must exist and parse.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { duplicateJsonKeys } from "../../internal/duplicate_json_keys.ts";
import { ManifestError, type ManifestIssue } from "../../errors.ts";
import { PACKAGE_FILE_LIMITS } from "../../limits.ts";
import { type Manifest, parseManifest, readPackageText } from "../../packages/mod.ts";
import type { CheckProblem } from "./problem.ts";
import { JsonPlaces, parseFieldPath } from "./_json_place.ts";
import { taskCommand } from "../checkout.ts";

/** The manifest as check read it. */
export interface ManifestCheck {
  /** The validated manifest; absent when it has problems. */
  manifest?: Manifest;
  /** The file's text, when it could be read. */
  text?: string;
  /** Places of the manifest's fields, when the file could be read. */
  places?: JsonPlaces;
  /** Why the manifest is missing or invalid, each validator issue at its field; empty when valid. */
  problems: CheckProblem[];
}

const MANIFEST = "manifest.json";

/**
 * Reads and validates `<dir>/manifest.json`.
 *
 * @returns The manifest, or every problem found, each placed at its field.
 */
export async function checkManifest(dir: string): Promise<ManifestCheck> {
  let text: string;
  try {
    text = await readPackageText(dir, MANIFEST, PACKAGE_FILE_LIMITS.maxManifestBytes);
  } catch (error) {
    return {
      problems: [{
        rule: "manifest-json",
        file: MANIFEST,
        message: error instanceof Deno.errors.NotFound
          ? "manifest.json is missing"
          : `manifest.json cannot be read: ${(error as Error).message}`,
        hint: "every package has a manifest.json at its top level; " +
          "deno task new <id> writes one to start from",
      }],
    };
  }
  // Read once: every problem, one per handler included, is placed from it.
  const places = new JsonPlaces(text);
  try {
    return { manifest: parseManifest(text, MANIFEST), places, problems: [] };
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    return { places, problems: error.issues.map((issue) => fromIssue(places, issue)) };
  }
}

/** One validator issue as a check problem, at the line of its field. */
function fromIssue(places: JsonPlaces, issue: ManifestIssue): CheckProblem {
  const { path, message } = issue;
  if (path === "") {
    const at = /at line (\d+), column (\d+)/.exec(message);
    const isJson = /JSON|the file is empty/.test(message);
    return {
      rule: isJson ? "manifest-json" : "manifest",
      file: MANIFEST,
      ...(at ? { line: Number(at[1]), column: Number(at[2]) } : { line: 1, column: 1 }),
      message: `manifest.json: ${message}`,
      hint: isJson
        ? "write plain JSON: names in double quotes, no trailing commas, no comments"
        : "the manifest is one JSON object; docs/manifest.md lists its fields",
    };
  }
  const place = places.of(parseFieldPath(path));
  const where = { file: MANIFEST, ...place, message: `${path}: ${message}` };
  if (/^schedule\[\d+\]\.handler$/.test(path) && /is not a declared handler/.test(message)) {
    return {
      rule: "schedule-handler",
      ...where,
      hint: `a schedule row calls a handler the manifest declares: declare it under "handlers" ` +
        `with a description, or name one that is declared`,
    };
  }
  if (/^schedule\[\d+\]\.description$/.test(path)) {
    return {
      rule: "schedule-description",
      ...where,
      hint: `every schedule row says what it does, in a sentence the extension's page shows ` +
        `the person, e.g. "description": "Checks the tracker for new issues"; ` +
        `the page says how often from "every"`,
    };
  }
  if (/^schedule\[\d+\]\.every$/.test(path)) {
    return {
      rule: "manifest",
      ...where,
      hint: `write an interval: a whole number, then m (minutes), h (hours) or d (days), from ` +
        `"1m" to "30d", such as "15m", "1h" or "1d"; the clock looks once a minute, so ` +
        `seconds are refused, and cron is not read`,
    };
  }
  if (/^lifecycle\./.test(path)) {
    return {
      rule: "lifecycle-handler",
      ...where,
      hint: `a lifecycle moment calls a handler the manifest declares: declare it under ` +
        `"handlers", or remove the moment`,
    };
  }
  if (/^handlers\[.*\]\.agent/.test(path)) {
    return {
      rule: "agent-tool",
      ...where,
      hint: `an agent tool is a declared handler with "agent": { "description": "…", ` +
        `"input": { "type": "object", "properties": { … } } }, and, to declare what it ` +
        `answers, "output": { "type": "object", "properties": { … } }`,
    };
  }
  if (/^device\.tasks\.\w+\.handler$/.test(path) && /is not a declared handler/.test(message)) {
    return {
      rule: "device-task-handler",
      ...where,
      hint: `each step of a device's task calls a handler the manifest declares: declare it ` +
        `under "handlers" with a description, or name one that is declared`,
    };
  }
  if (path === "device" || path.startsWith("device.") || path.startsWith("device[")) {
    return { rule: "device", ...where, hint: deviceHint(path, message) };
  }
  if (/permission/.test(message) && path === "permissions") {
    return {
      rule: "manifest",
      ...where,
      hint: `add the permission to "permissions"; the install card shows each one to the ` +
        `person who approves the package (docs/manifest.md)`,
    };
  }
  return {
    rule: "manifest",
    ...where,
    hint: /required field/.test(message)
      ? "add the field; docs/manifest.md lists every field and what it holds"
      : "docs/manifest.md lists every field and what it holds",
  };
}

/** What to do about a problem of `device`, by where it is. */
function deviceHint(path: string, message: string): string {
  const rules = `docs/manifest.md "Device" says each field and the rules between them`;
  if (/\.every$/.test(path)) {
    return `a scheduled device runs each task on its interval: write one as a schedule row's ` +
      `(a whole number, then m, h or d, from "1m" to "30d", such as "15m"), or drop ` +
      `"scheduled" from device.modes`;
  }
  if (path === "device.url") {
    return `a website device is a site a person opens: "modes": ["website"] with ` +
      `"url": "https://…", and no account or tasks; any other device has no url`;
  }
  if (/website/.test(message)) {
    return `a website device is "modes": ["website"] alone, with a "url" and no account or ` +
      `tasks; a device that reads a source lists "scheduled", "observation" or "on-demand"`;
  }
  if (/"observation"/.test(message)) {
    return `observation watches a folder for changes: give the device ` +
      `"account": { "kind": "folder", … }, or take "observation" out of device.modes`;
  }
  if (/^device\.(account|tasks)/.test(path)) {
    return `a device reads an account a person connects ("account": { "kind": "folder", ` +
      `"description": "…" }) with a sync task ("tasks": { "sync": { "handler": "…", ` +
      `"description": "…" } }); ${rules}`;
  }
  return rules;
}

/**
 * Checks that the files the manifest names exist and parse: `service`, `ui`,
 * `prompt`, and each of `types` (JSON with a `kind` under the package's id).
 * A missing built module whose source is there is told to build it, with the
 * command that does from any folder, naming the package as `folder`.
 */
export async function checkFiles(
  dir: string,
  manifest: Manifest,
  places: JsonPlaces,
  folder: string = resolve(dir),
): Promise<CheckProblem[]> {
  const problems: CheckProblem[] = [];
  const missing = (
    rule: string,
    field: (string | number)[],
    fieldName: string,
    file: string,
    error: unknown,
    hint: string,
  ): CheckProblem => ({
    rule,
    file: MANIFEST,
    ...places.of(field),
    message: error instanceof Deno.errors.NotFound
      ? `${fieldName} names "${file}", which does not exist`
      : `${fieldName} names "${file}", which cannot be read: ${(error as Error).message}`,
    hint,
  });

  if (manifest.service) {
    try {
      await readPackageText(dir, manifest.service);
    } catch (error) {
      problems.push(missing(
        "service-file",
        ["service"],
        "service",
        manifest.service,
        error,
        await builtFrom(dir, "src/service.ts", folder) ??
          "deno task build compiles src/service.ts into it; check builds first, so write " +
            "src/service.ts, or fix the path",
      ));
    }
  }
  if (manifest.ui) {
    try {
      await readPackageText(dir, manifest.ui);
    } catch (error) {
      problems.push(missing(
        "ui-file",
        ["ui"],
        "ui",
        manifest.ui,
        error,
        await builtFrom(dir, "src/index.tsx", folder) ??
          "deno task build compiles src/index.tsx into it; check builds first, so write " +
            "src/index.tsx, or fix the path",
      ));
    }
  }
  if (manifest.prompt) {
    try {
      await readPackageText(dir, manifest.prompt);
    } catch (error) {
      problems.push(missing(
        "prompt-file",
        ["prompt"],
        "prompt",
        manifest.prompt,
        error,
        `write what the package tells an agent in "${manifest.prompt}" (Markdown), or remove "prompt"`,
      ));
    }
  }
  for (const [i, file] of (manifest.types ?? []).entries()) {
    let text: string;
    try {
      text = await readPackageText(dir, file);
    } catch (error) {
      problems.push(missing(
        "types-file",
        ["types", i],
        `types[${i}]`,
        file,
        error,
        `write the record type as JSON, e.g. { "kind": "${manifest.id}.item", "title": "Item" }, ` +
          `or remove it from "types"`,
      ));
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const message = (error as Error).message;
      const at = /line (\d+) column (\d+)/.exec(message);
      problems.push({
        rule: "types-file",
        file,
        ...(at ? { line: Number(at[1]), column: Number(at[2]) } : { line: 1, column: 1 }),
        message: `is not valid JSON: ${message.replace(/ at position \d+.*$/, "")}`,
        hint: "write plain JSON: names in double quotes, no trailing commas, no comments",
      });
      continue;
    }
    // A type says which kind the package publishes to others; a key written
    // twice would say one thing to a person reading it and another to JSON.parse.
    const repeats = duplicateJsonKeys(text);
    for (const { key, path, at, first } of repeats) {
      problems.push({
        rule: "types-file",
        file,
        line: at.line,
        column: at.column,
        message:
          `the key ${JSON.stringify(key)} appears twice in ${
            path.length === 0 ? "the type" : JSON.stringify(path.join("."))
          }, at line ${at.line}, column ${at.column} (first at line ${first.line}, column ` +
          `${first.column}); JSON would keep only the last one silently: keep one`,
        hint: "write each key once: a person reading the type and Sync must see the same kind",
      });
    }
    if (repeats.length > 0) continue;
    const kind = (value as { kind?: unknown } | null)?.kind;
    if (typeof kind !== "string" || !kind.startsWith(`${manifest.id}.`)) {
      problems.push({
        rule: "types-file",
        file,
        ...new JsonPlaces(text).of(["kind"]),
        message: typeof kind === "string"
          ? `"kind" is "${kind}", which does not start with "${manifest.id}."`
          : `has no "kind"`,
        hint: `a package publishes kinds under its own id: "kind": "${manifest.id}.item"`,
      });
    }
  }
  return problems;
}

/** The hint for a built file that is missing while its source is there; undefined without one. */
async function builtFrom(dir: string, source: string, folder: string): Promise<string | undefined> {
  const present = await Deno.stat(join(dir, source)).then((info) => info.isFile, () => false);
  if (!present) return undefined;
  return `${source} is there but not built: build it (${taskCommand(`build ${folder}`)}), ` +
    `or run check (${taskCommand(`check ${folder}`)}), which builds first`;
}
