/**
 * `new`: a package folder an author can build, check, install and call at
 * once — a manifest, one typed handler that writes a record of the package's
 * own kind, the type it publishes, what it tells an agent, and a `deno.json`
 * that resolves `@sync/extension-api/service` for the bundler and the editor;
 * with `screen`, also a screen (`src/screen/`, entered from `src/index.tsx` and
 * built into `ui/index.js`) that lists the package's records and calls its
 * handler, typed against the DOM in its own folder only.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { InvalidInputError, ManifestError } from "../errors.ts";
import { validateManifest } from "../packages/mod.ts";
import { SYNC_CHECKOUT, taskCommand } from "./checkout.ts";

/** Options for {@linkcode scaffoldPackage}. */
export interface ScaffoldOptions {
  /** The name people see; default the id with a capital letter (`hello` → `Hello`). */
  name?: string;
  /** Also a screen: `src/index.tsx` and `src/screen/`, and `ui` in the manifest. */
  screen?: boolean;
}

/** What `new` created. */
export interface ScaffoldResult {
  /** The package id, as given. */
  id: string;
  /** The package folder, absolute. */
  dir: string;
  /** Files written, relative to `dir`. */
  files: string[];
  /** The handler it declares, such as `hello.hello`. */
  handler: string;
}

/** URL of this checkout's API module, `file:///…/runtime/extension_api/service.ts`. */
export const API_MODULE_URL: string = new URL("../extension_api/service.ts", import.meta.url).href;

/** URL of this checkout's screen API module, `file:///…/runtime/extension_api/ui.ts`. */
export const SCREEN_API_MODULE_URL: string =
  new URL("../extension_api/ui.ts", import.meta.url).href;

/**
 * Creates a package folder for `id` at `dir`.
 *
 * @param id The package id (2–40 characters: a lowercase letter, then
 *   lowercase letters, digits or `-`).
 * @param dir Where to create it; it must not exist, or be empty.
 * @param options The package's name, and the API module its `deno.json` maps the import to.
 * @returns The id, the folder, the files written and the handler declared.
 * @throws {InvalidInputError} for an id the manifest rules refuse, an id a
 *   package beside `dir` already has (installing both would replace one with the
 *   other), or a folder that exists and is not empty (or is a file).
 * @example
 * ```ts
 * const created = await scaffoldPackage("hello", "/home/ada/hello");
 * created.files; // ["manifest.json", "src/service.ts", …]
 * ```
 */
export async function scaffoldPackage(
  id: string,
  dir: string,
  options: ScaffoldOptions = {},
): Promise<ScaffoldResult> {
  const name = options.name ?? (id.length > 0 ? id[0].toUpperCase() + id.slice(1) : id);
  const handler = `${id}.hello`;
  const manifest = {
    id,
    name,
    version: "0.1.0",
    description: `${name}: greets whoever calls it and keeps each greeting as a ${id}.note record.`,
    permissions: ["background"],
    service: "service/index.js",
    ...(options.screen ? { ui: "ui/index.js" } : {}),
    handlers: {
      [handler]: { description: `Greets a name and writes a ${id}.note record` },
    },
    types: ["types/note.json"],
    prompt: "prompt/instructions.md",
  };
  try {
    validateManifest(manifest, "new");
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    // A bad id makes the handler name bad too; the id is the one thing to fix.
    const idIssues = error.issues.filter((issue) => issue.path === "id");
    const problems = (idIssues.length ? idIssues : error.issues)
      .map((issue) => `${issue.path}: ${issue.message}`).join("; ");
    throw new InvalidInputError(`Cannot create package ${JSON.stringify(id)}: ${problems}`);
  }
  await assertEmptyFolder(id, dir);
  await assertFreshId(id, dir);

  const files: [string, string][] = [
    ["manifest.json", `${JSON.stringify(manifest, null, 2)}\n`],
    ["src/service.ts", serviceSource(id, handler)],
    [
      "types/note.json",
      `${
        JSON.stringify(
          {
            kind: `${id}.note`,
            title: "Note",
            description:
              `One greeting written by ${name}: who was greeted, and why the handler ran.`,
            fields: {
              name: { type: "string" },
              occasion: { type: "string" },
            },
          },
          null,
          2,
        )
      }\n`,
    ],
    [
      "prompt/instructions.md",
      `${name} keeps one record of kind \`${id}.note\` per greeting; its title says who was greeted\n` +
      `and its \`occasion\` field why the handler ran.\n`,
    ],
    [
      "deno.json",
      `${
        JSON.stringify(
          {
            imports: {
              "@sync/extension-api/service": API_MODULE_URL,
              ...(options.screen ? { "@sync/extension-api/ui": SCREEN_API_MODULE_URL } : {}),
            },
            // The isolate's library alone: the editor underlines setTimeout or fetch in
            // src/service.ts. The screen gets the DOM from a deno.json of its own.
            compilerOptions: { strict: true, lib: ["esnext"] },
          },
          null,
          2,
        )
      }\n`,
    ],
    ["README.md", readme(id, name, handler, dir)],
    ...(options.screen ? screenFiles(id, name, handler) : []),
  ];
  for (const [file, text] of files) {
    const path = join(dir, file);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text, { createNew: true });
  }
  return { id, dir, files: files.map(([file]) => file), handler };
}

async function assertEmptyFolder(id: string, dir: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (!info.isDirectory) {
    throw new InvalidInputError(
      `Cannot create package ${id} at ${dir}: a file is there; choose another folder`,
    );
  }
  for await (const _ of Deno.readDir(dir)) {
    throw new InvalidInputError(
      `Cannot create package ${id} in ${dir}: the folder is not empty; ` +
        `choose a new folder (${taskCommand(`new ${id} <dir>`)}) or empty this one`,
    );
  }
}

/**
 * Refuses an id a package in the folder `dir` is written into already has:
 * two packages with one id replace each other when installed.
 */
async function assertFreshId(id: string, dir: string): Promise<void> {
  const parent = dirname(dir);
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(parent));
  } catch {
    return; // A folder that does not exist yet holds no package.
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory || entry.name === basename(dir)) continue;
    const other = join(parent, entry.name);
    let manifest: unknown;
    try {
      manifest = JSON.parse(await Deno.readTextFile(join(other, "manifest.json")));
    } catch {
      continue; // Not a package folder, or one whose manifest cannot be read.
    }
    if ((manifest as { id?: unknown })?.id !== id) continue;
    throw new InvalidInputError(
      `Cannot create package ${id} in ${dir}: ${other} already has a package with the id ` +
        `${id}, and installing one would replace the other; choose another id ` +
        `(${taskCommand("new <id>")})`,
    );
  }
}

function serviceSource(id: string, handler: string): string {
  return `// The service module of ${id}: its handlers. \`deno task build\` compiles it to
// service/index.js; the host serves "@sync/extension-api/service" inside the isolate.
import { console, type Handlers, memory } from "@sync/extension-api/service";

/** What ${handler} accepts. Any caller may send anything, so it is checked before use. */
interface HelloPayload {
  name?: unknown;
}

export default function register(): Handlers {
  return {
    // Every key returned here is declared under "handlers" in manifest.json.
    "${handler}": async (payload: HelloPayload | null, occasion) => {
      const name = typeof payload?.name === "string" ? payload.name : "world";
      const { records } = await memory.list({ kind: "${id}.note", limit: 500 });
      const key = \`${id}.note/\${records.length + 1}\`;
      await memory.write({
        key,
        title: \`Hello, \${name}!\`,
        fields: { name, occasion: occasion.kind },
      });
      console.log(\`wrote \${key} (\${occasion.kind})\`);
      return { key, greeting: \`Hello, \${name}!\` };
    },
  };
}
`;
}

/**
 * The screen's files. Its code is in `src/screen/`, a folder with a `deno.json`
 * of its own that adds the DOM's types: an editor types each `deno.json`'s
 * folder as one program, and a library named anywhere in a program (in
 * `compilerOptions.lib` or a `/// <reference lib>`) holds in every file of it,
 * so the DOM beside `src/service.ts` would hide its `setTimeout` from the
 * editor. `src/index.tsx`, the entry the build bundles, only re-exports it.
 */
function screenFiles(id: string, name: string, handler: string): [string, string][] {
  return [
    [
      "src/index.tsx",
      `// The screen's entry: \`deno task build\` bundles it, with src/screen/, into ui/index.js.\n` +
      `// The screen is in src/screen/, whose deno.json gives it the DOM's types; src/service.ts\n` +
      `// keeps the isolate's ECMAScript library alone.\n` +
      `export { activate } from "./screen/index.tsx";\n`,
    ],
    [
      "src/screen/deno.json",
      `${
        JSON.stringify(
          {
            imports: { "@sync/extension-api/ui": SCREEN_API_MODULE_URL },
            compilerOptions: { strict: true, lib: ["esnext", "dom", "dom.iterable"] },
          },
          null,
          2,
        )
      }\n`,
    ],
    ["src/screen/index.tsx", screenSource(id, name, handler)],
  ];
}

function screenSource(id: string, name: string, handler: string): string {
  return `// The screen of ${id}: shown in the project's window, in a sandboxed frame. \`deno task build\`
// bundles it into ui/index.js. It reaches Sync only through ctx; it draws with the app's classes.
import type { ScreenContext } from "@sync/extension-api/ui";

export async function activate(ctx: ScreenContext): Promise<void> {
  const heading = document.createElement("h1");
  heading.textContent = "${name}";
  const button = document.createElement("button");
  button.className = "button primary";
  button.textContent = "Greet";
  const status = document.createElement("p");
  status.setAttribute("role", "status");
  const list = document.createElement("ul");
  list.className = "screen-list";
  document.body.append(heading, button, status, list);

  const read = async () => {
    const { records } = await ctx.memory.list({ kind: "${id}.note", limit: 50 });
    list.replaceChildren(...records.map((record) => {
      const item = document.createElement("li");
      item.textContent = record.title;
      return item;
    }));
  };
  button.addEventListener("click", async () => {
    try {
      const answer = await ctx.handlers.call("${handler}", { name: "screen" }) as { key: string };
      status.textContent = \`Wrote \${answer.key}\`;
    } catch (error) {
      status.textContent = \`${handler} failed: \${(error as Error).message}\`;
    }
    await read();
  });
  await read();
}
`;
}

function readme(id: string, name: string, handler: string, dir: string): string {
  const task = `deno task --cwd ${SYNC_CHECKOUT}`;
  return `# ${name}

A Sync package. \`src/service.ts\` holds its handlers; \`manifest.json\` declares them.

\`\`\`sh
${task} build ${dir}      # src/service.ts → service/index.js
${task} check ${dir}      # builds, then checks the manifest, types, globals and handlers
${task} sync install ${dir} --project <project folder> --approve
${task} sync call ${id} ${handler} --project <project folder> --payload '{"name":"Ada"}'
${task} sync records --project <project folder> --kind ${id}.note
\`\`\`

These are tasks of the Sync checkout; \`--cwd\` runs them from wherever you are. The author docs
are its \`docs/authors.md\`. The absolute path in \`deno.json\` is for your editor and the build
only: installing and running the package never reads it.
`;
}
