/**
 * The `sync` command line. Run it as `deno task sync <command>` (and
 * `deno task check|build|new`); `SYNC_HOME` chooses the installation.
 *
 * @module
 */
import { enterStartFolder, runCli } from "./runtime/cli/mod.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, { cwd: enterStartFolder() }));
}
