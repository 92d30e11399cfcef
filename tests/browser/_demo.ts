/**
 * Busy installations for the measurements and the screenshots, set up the
 * way the CLI would but in this process: the installation's own KV, a real
 * host, real installs and real handler calls, before `sync serve` takes the
 * installation.
 *
 * @module
 */
import { Host } from "../../runtime/host/mod.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { openInstallation } from "../../runtime/projects/mod.ts";

/** What to call once a package is installed. */
export interface DemoCall {
  /** The handler's name. */
  handler: string;
  /** Its payload. */
  payload?: unknown;
  /** It is meant to fail: its failed receipt is what the demo wants. */
  fails?: boolean;
}

/** One package to install into the busy project, and the calls that leave its receipts. */
export interface DemoPackage {
  /** The package folder. */
  folder: string;
  /** Its id. */
  id: string;
  /** Calls to make, in order. */
  calls: DemoCall[];
}

/**
 * Installs every package into `project` (approved) and makes its calls, over
 * the installation `home`, with the rate limit raised so that a thousand
 * calls fit in the setup (the limit guards a person's machine against a
 * runaway package, not a test against itself). Closes the installation after.
 */
export async function setUpDemo(
  home: string,
  project: string,
  packages: DemoPackage[],
): Promise<void> {
  const kv = await openInstallation(home);
  const host = new Host({
    kv,
    home,
    limits: { ...DEFAULT_LIMITS, rateLimit: 100_000 },
    log: () => {},
  });
  try {
    for (const item of packages) {
      await installPackage(host, item.folder, project, { approve: true });
    }
    await Promise.all(packages.map(async (item) => {
      for (const call of item.calls) {
        const called = host.callHandler(project, item.id, call.handler, {
          occasion: { kind: "extension" },
          source: { kind: "person" },
          payload: call.payload,
        });
        if (call.fails) await called.then(() => {}, () => {});
        else await called;
      }
    }));
  } finally {
    await host.close();
    kv.close();
  }
}

/** The example packages of `extensions/`, by id. */
export const EXAMPLES_DIR = new URL("../../extensions/", import.meta.url);

/** The example package folder `id` of `extensions/`. */
export function examplePath(id: string): string {
  return decodeURIComponent(new URL(`${id}/`, EXAMPLES_DIR).pathname).replace(/\/$/, "");
}

/**
 * The demo: `hello`, `issues` and `decisions` of `extensions/` installed in
 * `project`, with a few greetings and one poll of a tracker that cannot be
 * reached (a failed receipt, as a machine without the network leaves).
 * `triage` and `tail` stay uninstalled: the screenshots install triage for Chat, and show
 * the install card of tail.
 */
export async function setUpExamples(home: string, project: string): Promise<void> {
  await setUpDemo(home, project, [
    {
      id: "hello",
      folder: examplePath("hello"),
      calls: ["Ada", "Grace", "Linus"].map((name) => ({
        handler: "hello.greet",
        payload: { name },
      })),
    },
    {
      id: "issues",
      folder: examplePath("issues"),
      calls: [{ handler: "issues.poll", fails: true }],
    },
    { id: "decisions", folder: examplePath("decisions"), calls: [] },
  ]);
}
