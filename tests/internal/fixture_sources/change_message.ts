/**
 * Changes one message of a fixture Maildir while a reader runs, the ways mail
 * clients and faults do: rewritten in place (new size and mtime, as a tagger
 * adding a header does), marked seen (moved from new/ to cur/ or renamed with
 * a flag added, mtime kept, as a client does), vanished, or made unreadable.
 *
 * @module
 */

import { join } from "node:path";

/** One change to a message file. */
export type MessageChange =
  /** Rewrites the file with a header added on top; `mtime` in seconds since the epoch. */
  | { kind: "rewrite"; mtime: number; header?: string }
  /** Moves new/ → cur/ with `:2,<flags>`, or adds the flags to a cur/ name. */
  | { kind: "seen"; flags?: string }
  | { kind: "vanish" }
  /** `chmod 000`; see {@link ChangedMessage.readable}. */
  | { kind: "unreadable" };

/** The message after a change. */
export interface ChangedMessage {
  /** Relative to the Maildir; null once vanished. */
  path: string | null;
  size: number | null;
  mtime: number | null;
  /**
   * Whether this process can still read the file. After `unreadable` it stays
   * true when running as root, whom file modes do not stop: a test that needs
   * the read to fail should skip then.
   */
  readable: boolean;
  /** Gives the file its mode (0644) back; for `unreadable`, before removing the fixture. */
  restore?: () => Promise<void>;
}

function withFlags(name: string, flags: string): string {
  const [unique, info = "2,"] = name.split(":");
  const merged = [...new Set(info.slice(2) + flags)].sort().join("");
  return `${unique}:2,${merged}`;
}

async function canRead(file: string): Promise<boolean> {
  try {
    (await Deno.open(file, { read: true })).close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies `change` to the message at `path` (relative to the Maildir `dir`).
 *
 * @example
 * ```ts
 * const moved = await changeMessage(dir, truth.messages[0].path, { kind: "seen" });
 * ```
 */
export async function changeMessage(
  dir: string,
  path: string,
  change: MessageChange,
): Promise<ChangedMessage> {
  const file = join(dir, ...path.split("/"));
  switch (change.kind) {
    case "rewrite": {
      const bytes = await Deno.readFile(file);
      const header = new TextEncoder().encode(
        (change.header ?? "X-Keywords: $label1, important") + "\n",
      );
      const next = new Uint8Array(header.length + bytes.length);
      next.set(header);
      next.set(bytes, header.length);
      await Deno.writeFile(file, next);
      await Deno.utime(file, change.mtime, change.mtime);
      return { path, size: next.length, mtime: change.mtime, readable: true };
    }
    case "seen": {
      const parts = path.split("/");
      const name = parts.pop()!;
      const box = parts.slice(0, -1);
      const moved = [...box, "cur", withFlags(name, change.flags ?? "S")].join("/");
      await Deno.rename(file, join(dir, ...moved.split("/")));
      const stat = await Deno.stat(join(dir, ...moved.split("/")));
      return {
        path: moved,
        size: stat.size,
        mtime: Math.round(stat.mtime!.getTime() / 1000),
        readable: true,
      };
    }
    case "vanish":
      await Deno.remove(file);
      return { path: null, size: null, mtime: null, readable: false };
    case "unreadable": {
      const stat = await Deno.stat(file);
      await Deno.chmod(file, 0o000);
      return {
        path,
        size: stat.size,
        mtime: Math.round(stat.mtime!.getTime() / 1000),
        readable: await canRead(file),
        restore: () => Deno.chmod(file, 0o644),
      };
    }
  }
}
