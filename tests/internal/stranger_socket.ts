/**
 * Test helper: another user's listener on a Unix socket, in a process of its
 * own (the tests may not listen on sockets themselves): the socket is given to
 * the user `owner`, and everything sent to it is kept and can be read.
 *
 * @module
 */

/** What the listener runs: it says "listening" once the socket is there, then echoes what it is sent. */
const LISTENER = `
const [path, owner] = Deno.args;
const listener = Deno.listen({ transport: "unix", path });
Deno.chownSync(path, Number(owner), Number(owner));
console.log("listening");
for await (const conn of listener) {
  console.log("connected");
  (async () => {
    const buffer = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      console.log(JSON.stringify(new TextDecoder().decode(buffer.subarray(0, n))));
      await conn.write(new TextEncoder().encode(
        "HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\n\\r\\n{}",
      )).catch(() => {});
    }
    try { conn.close(); } catch { /* closed */ }
  })();
}
`;

/** Another user's program listening on a Unix socket. */
export class StrangerSocket {
  #child: Deno.ChildProcess;
  #out = "";
  #reading: Promise<void>;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#reading = (async () => {
      for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
        this.#out += text;
      }
    })();
  }

  /** Starts a listener on `path`, owned by the user `owner`, and waits until it listens. */
  static async listen(path: string, owner: number): Promise<StrangerSocket> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["eval", LISTENER, path, String(owner)],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const stranger = new StrangerSocket(child);
    const until = Date.now() + 20_000;
    while (!stranger.#out.includes("listening\n")) {
      if (Date.now() > until) {
        await stranger.close();
        throw new Error(`the stranger's listener did not start on ${path}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return stranger;
  }

  /** How many connections it was offered. */
  get connections(): number {
    return this.#out.split("\n").filter((line) => line === "connected").length;
  }

  /** Everything it was sent. */
  get received(): string {
    return this.#out.split("\n").filter((line) => line.startsWith('"')).map((line) =>
      JSON.parse(line) as string
    ).join("");
  }

  /** Stops the listener and waits until it is gone. */
  async close(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
    await this.#child.status;
    await this.#reading;
  }
}
