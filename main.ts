/**
 * The `sync` command line. Run it as `deno task sync <command>` (and
 * `deno task check|build|new`); `SYNC_HOME` chooses the installation.
 *
 * @module
 */
import { runCli } from "./runtime/cli/sync.ts";

if (import.meta.main) {
  // `deno task` runs in the repository; paths a person typed are relative to
  // where they typed them, which it passes as INIT_CWD.
  const from = Deno.env.get("INIT_CWD");
  if (from) Deno.chdir(from);
  Deno.exit(await runCli(Deno.args));
}
