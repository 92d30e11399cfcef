/**
 * The web app on 127.0.0.1 and `serve`, the long-running process that owns the
 * installation: it holds the app and the clock, and runs the CLI's commands sent
 * to its local API.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export type { CommandLine, CommandOutput, CommandRequest, CommandRunner } from "./api/commands.ts";
export { serve } from "./serve.ts";
export type { ServedCommandRunner, ServedParts, ServeHost, ServeOptions } from "./serve.ts";
export type { WebHost } from "./web_host.ts";
