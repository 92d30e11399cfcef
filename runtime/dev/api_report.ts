/**
 * `deno task api:report`: writes `docs/extension_api.report.txt`, the public
 * shape of `@sync/extension-api/*` (every entry the root `deno.json` maps
 * under that prefix) and the `API_VERSION` it was made for, from
 * `deno doc --json` reduced to names and types (`runtime/dev/api_shape.ts`).
 *
 * It refuses to write when `API_VERSION` has not moved from the version the
 * checked-in report records by the step the changes ask for
 * (`runtime/dev/api_bump.ts`, the rule in `docs/authors.md`), and says which
 * version it must be. `tests/dev/api_report_test.ts` fails while the report
 * is stale.
 *
 * @module
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { apiVersionProblem, compareApiShapes } from "./api_bump.ts";
import type { ApiRole } from "./api_roles.ts";
import { type ApiEntry, type ApiShape, member, reduceApiShape } from "./api_shape.ts";

const ROOT = new URL("../../", import.meta.url);
/** Where the report is kept, from the repository's root. */
export const API_REPORT_PATH = "docs/extension_api.report.txt";
/** The prefix of the import map's keys that are the API's entries. */
const API_PREFIX = "@sync/extension-api/";

const HEADER = `# The public shape of @sync/extension-api, made by \`deno task api:report\` from
# \`deno doc --json\`; do not edit it by hand. Change the API, move API_VERSION by the rule in
# docs/authors.md ("The API's version"), and run the task again: it says which version the
# changes ask for. tests/dev/api_report_test.ts fails while this file is stale.
#
# Under each entry, its exports by name; under an interface, its members by name. Who makes an
# interface's values: [host makes] (a package only receives them), [author makes] (a package
# builds them), [both make]. A required member added to one the author makes breaks packages.
`;

const ROLE_TAGS = new Map<ApiRole, string>([
  ["host", "[host makes]"],
  ["author", "[author makes]"],
  ["both", "[both make]"],
]);

/** Options for {@linkcode makeApiShape}. */
export interface MakeApiShapeOptions {
  /** The deno executable; `deno` on the PATH unless given (what `--allow-run=deno` allows). */
  deno?: string;
  /** The repository's root; this checkout unless given. */
  root?: URL;
}

/** Runs `deno doc --json` over the API's entries and reduces what it says to the shape. */
export async function makeApiShape(options: MakeApiShapeOptions = {}): Promise<ApiShape> {
  const root = options.root ?? ROOT;
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const entries: ApiEntry[] = Object.entries(config.imports as Record<string, string>)
    .filter(([specifier]) => specifier.startsWith(API_PREFIX))
    .map(([specifier, path]) => ({ specifier, url: new URL(path, root).href }));
  if (entries.length === 0) throw new Error(`deno.json maps no ${API_PREFIX}* entry`);
  const output = await new Deno.Command(options.deno ?? "deno", {
    args: ["doc", "--json", ...entries.map((entry) => fileURLToPath(entry.url))],
    cwd: fileURLToPath(root),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`deno doc --json failed: ${new TextDecoder().decode(output.stderr)}`);
  }
  // deno doc keys its nodes by URL; normalise both sides the same way.
  const doc = JSON.parse(new TextDecoder().decode(output.stdout));
  const normalised = entries.map((e) => ({ ...e, url: pathToFileURL(fileURLToPath(e.url)).href }));
  return reduceApiShape(doc, normalised);
}

/** The report's text: deterministic, one line per export and per member. */
export function renderApiReport(shape: ApiShape): string {
  const lines = [HEADER, `version ${shape.version}`];
  for (const module of shape.modules) {
    lines.push("", module.specifier);
    for (const symbol of module.symbols) {
      const tag = symbol.role ? `  ${ROLE_TAGS.get(symbol.role)}` : "";
      lines.push(`  ${symbol.text}${tag}`);
      for (const m of symbol.members) lines.push(`    ${m.text}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Reads a report back into the shape it was rendered from. */
export function parseApiReport(text: string): ApiShape {
  const shape: ApiShape = { version: "", modules: [] };
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const module = shape.modules.at(-1);
    const symbol = module?.symbols.at(-1);
    if (line.startsWith("version ")) shape.version = line.slice("version ".length).trim();
    else if (line.startsWith("    ") && symbol) symbol.members.push(member(line.slice(4)));
    else if (line.startsWith("  ") && !line.startsWith("   ") && module) {
      let body = line.slice(2);
      let role: ApiRole | undefined;
      for (const [name, tag] of ROLE_TAGS) {
        if (body.endsWith(`  ${tag}`)) {
          role = name;
          body = body.slice(0, -(tag.length + 2));
        }
      }
      const name = /^\S+ ([^\s<:(=]+)/.exec(body)?.[1] ?? body;
      module.symbols.push({ name, text: body, ...(role ? { role } : {}), members: [] });
    } else if (!line.startsWith(" ")) shape.modules.push({ specifier: line.trim(), symbols: [] });
    else throw new Error(`${API_REPORT_PATH}:${index + 1} is not a line of a report: ${line}`);
  }
  if (shape.version === "") throw new Error(`${API_REPORT_PATH} has no version line`);
  return shape;
}

/** What {@linkcode writeApiReport} did. */
export interface WriteApiReportResult {
  /** The report's path. */
  path: string;
  /** The version it was made for. */
  version: string;
  /** The changes from the report it replaced; empty for the first. */
  changes: string[];
}

/**
 * Writes the report, after checking `API_VERSION` moved by the step the
 * changes from the checked-in report ask for; throws, writing nothing, when
 * it did not.
 */
export async function writeApiReport(
  options: MakeApiShapeOptions = {},
): Promise<WriteApiReportResult> {
  const root = options.root ?? ROOT;
  const path = fileURLToPath(new URL(API_REPORT_PATH, root));
  const shape = await makeApiShape(options);
  let changes: string[] = [];
  const existing = await Deno.readTextFile(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  });
  if (existing !== null) {
    const before = parseApiReport(existing);
    const problem = apiVersionProblem(before, shape);
    if (problem) throw new Error(`${problem}\nMove it in every entry and run the task again.`);
    changes = compareApiShapes(before, shape).changes;
  }
  await Deno.writeTextFile(path, renderApiReport(shape));
  return { path: API_REPORT_PATH, version: shape.version, changes };
}

if (import.meta.main) {
  try {
    const { path, version, changes } = await writeApiReport();
    console.log(`Wrote ${path} for API_VERSION ${version}`);
    for (const change of changes) console.log(`  ${change}`);
  } catch (error) {
    console.error(`api:report: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
