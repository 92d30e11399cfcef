/**
 * A process that runs one applet task, to be killed while it runs: it opens
 * a host over the installation KV on disk at `<root>/installation.kv` (home
 * `<root>/home`, project `<root>/project`), installs the `mail` applet whose
 * `mail.sync` is the service module at `<root>/service.js`, connects the folder
 * `<root>/folder`, and runs the task. The handler's console lines go to
 * stdout as they come, so the test sees from outside how far the run went.
 *
 * Run as `deno run --allow-all --unstable-kv ... applet_run_child.ts <root>`.
 *
 * @module
 */
import { join } from "node:path";
import { TaskRunner } from "../../runtime/applets/mod.ts";
import { Host } from "../../runtime/host/mod.ts";
import { installPackage } from "../../runtime/lifecycle/install.ts";
import { DEFAULT_LIMITS } from "../../runtime/limits.ts";
import { writePackage } from "./packages.ts";

const root = Deno.args[0];
if (!root) throw new Error("applet_run_child.ts needs the test's folder as its argument");
const project = join(root, "project");
const kv = await Deno.openKv(join(root, "installation.kv"));
const host = new Host({
  kv,
  home: join(root, "home"),
  limits: { ...DEFAULT_LIMITS, rateLimit: 10_000 },
  log: (line) => console.log(line),
});
const device = {
  name: "Mail",
  description: "Reads a Maildir folder",
  modes: ["on-demand"],
  account: { kind: "folder", description: "Your Maildir" },
  tasks: { sync: { handler: "mail.sync", description: "Reads new and changed mail" } },
};
const dir = await writePackage(join(root, "packages"), {
  id: "mail",
  permissions: ["background", "account.folder"],
  handlers: ["mail.sync"],
  service: await Deno.readTextFile(join(root, "service.js")),
  manifest: { device },
});
await installPackage(host, dir, project, { approve: true, replace: true });
const runner = new TaskRunner(host, { log: (line) => console.log(line) });
await runner.connect(project, "mail", { kind: "folder", folder: join(root, "folder") });
console.log("running");
const attempt = await runner.runTask(project, "mail", "sync");
console.log(`ended ${attempt.outcome}`);
