/** One message file of a Maildir, as its path names it. */
export interface MaildirFile {
  /** The message's identity across runs: its folder and its file name without flags. */
  id: string;
  /** Relative to the Maildir, `/`-separated. */
  path: string;
  /** The folder's name: `INBOX` for the root, `Lists.deno` for `.Lists.deno/`. */
  folder: string;
  /** The Maildir flags from `:2,<flags>`, sorted; `""` in new/. */
  flags: string;
  size: number;
  mtime: number | null;
}

/** Names a folder of the box may not have: a message lies directly in one of them. */
const RESERVED = /(^|\/)(cur|new|tmp)(\/|$)/;
/** Flags as Maildir writes them: letters, any order. */
const LETTERS = /^[A-Za-z]*$/;
/** Folder names by their path in the Maildir: a Maildir has a few folders and many messages. */
const folders = new Map<string, string>();

/**
 * The message file at `path` (relative to the Maildir), or null when the path is no message:
 * messages are the files directly in `cur/` or `new/` of the root or of a subfolder
 * (Maildir++ `.Sub.Folder/`, or nested `Sub/Folder/` as mbsync's verbatim layout keeps them).
 * `tmp/` holds messages still being delivered, and names starting with `.` are not messages.
 * It runs for every file of the Maildir in every step, so it looks at the path by positions
 * rather than splitting it.
 */
export function maildirFile(
  path: string,
  size: number,
  mtime: number | null,
): MaildirFile | null {
  const slash = path.lastIndexOf("/");
  if (slash <= 0) return null;
  const name = path.slice(slash + 1);
  if (name === "" || name.startsWith(".")) return null;
  const boxEnd = path.lastIndexOf("/", slash - 1);
  const dir = path.slice(boxEnd + 1, slash);
  if (dir !== "cur" && dir !== "new") return null;
  const boxPath = boxEnd < 0 ? "" : path.slice(0, boxEnd);
  if (boxPath !== "" && RESERVED.test(boxPath)) return null;
  // `:2,` is the Maildir info separator; `!2,` and `;2,` are what some tools write where `:` is
  // not allowed in a file name. Flags are letters, so the last `2,` is the separator's.
  let unique = name;
  let flags = "";
  const info = name.lastIndexOf("2,");
  if (info > 0 && ":!;".includes(name[info - 1]) && LETTERS.test(name.slice(info + 2))) {
    unique = name.slice(0, info - 1);
    flags = sortedFlags(name.slice(info + 2));
  }
  let folder = folders.get(boxPath);
  if (folder === undefined) {
    folder = folderName(boxPath === "" ? [] : boxPath.split("/"));
    folders.set(boxPath, folder);
  }
  return { id: `${boxPath}/${unique}`, path, folder, flags, size, mtime };
}

/** Flags sorted, each once: as they usually come already, then without sorting. */
function sortedFlags(flags: string): string {
  for (let i = 1; i < flags.length; i++) {
    if (flags[i - 1] >= flags[i]) return [...new Set(flags)].sort().join("");
  }
  return flags;
}

function folderName(box: string[]): string {
  if (box.length === 0) return "INBOX";
  // Maildir++ keeps every subfolder at the top, `.Lists.deno`; a verbatim layout nests them.
  if (box.length === 1 && box[0].startsWith(".")) return box[0].slice(1);
  return box.map((part) => part.replace(/^\./, "")).join("/");
}
