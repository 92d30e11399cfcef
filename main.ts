/**
 * The `sync` command line. Run it as `deno task sync <command>` (and
 * `deno task check|build|new`); `SYNC_HOME` chooses the installation.
 *
 * @module
 */
import { runCli } from "./runtime/cli/sync.ts";
import { enterStartFolder } from "./runtime/cli/start_folder.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, { cwd: enterStartFolder() }));
}
