/**
 * The web app on 127.0.0.1 and `serve`, the long-running process that holds it and the clock.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { serve } from "./serve.ts";
export type { ServeHost, ServeOptions } from "./serve.ts";
