/**
 * `sync serve`: the long-running process. Serves the app on 127.0.0.1 until
 * interrupted.
 *
 * @module
 */
import { join } from "node:path";
import { Clock } from "./clock.ts";
import type { Host } from "./host.ts";
import { createApp } from "./web_app.ts";

/** Options for {@linkcode serve}. */
export interface ServeOptions {
  port: number;
  log: (line: string) => void;
  /** Stops serving when aborted (tests). */
  signal?: AbortSignal;
}

/** Serves until interrupted (or `signal` aborts). */
export async function serve(host: Host, options: ServeOptions): Promise<void> {
  const token = await installationToken(host.home);
  const app = createApp(host, { token, port: options.port });
  await host.pool.warm();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port,
    signal: options.signal,
    onListen: ({ port }) =>
      options.log(`Sync is serving at http://127.0.0.1:${port}/?token=${token}`),
  }, app.fetch);
  // The clock looks once now, so a package just installed proves itself
  // within the minute, and then once a minute.
  const clock = new Clock(host, { log: options.log });
  clock.start({ signal: options.signal });
  // Stopping lets go of the clock lease, so a serve started next takes the clock at once.
  const stop = () => server.shutdown();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) {
    try {
      Deno.addSignalListener(signal, stop);
    } catch { /* no such signal here */ }
  }
  await server.finished;
  await clock.stop();
  for (const signal of signals) {
    try {
      Deno.removeSignalListener(signal, stop);
    } catch { /* was never added */ }
  }
}

/** The installation's token, made once and kept in `<home>/token`. */
export async function installationToken(home: string): Promise<string> {
  const file = join(home, "token");
  try {
    const token = (await Deno.readTextFile(file)).trim();
    if (token.length >= 32) return token;
  } catch { /* made below */ }
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  await Deno.writeTextFile(file, token + "\n", { mode: 0o600 });
  return token;
}
