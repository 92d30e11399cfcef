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

// `:2,` is the Maildir info separator; `!2,` and `;2,` are what some tools write where `:` is not
// allowed in a file name.
const INFO = /[:!;]2,([A-Za-z]*)$/;

/**
 * The message file at `path` (relative to the Maildir), or null when the path is no message:
 * messages are the files directly in `cur/` or `new/` of the root or of a subfolder
 * (Maildir++ `.Sub.Folder/`, or nested `Sub/Folder/` as mbsync's verbatim layout keeps them).
 * `tmp/` holds messages still being delivered, and names starting with `.` are not messages.
 */
export function maildirFile(
  path: string,
  size: number,
  mtime: number | null,
): MaildirFile | null {
  const parts = path.split("/");
  if (parts.length < 2) return null;
  const name = parts[parts.length - 1];
  const dir = parts[parts.length - 2];
  if ((dir !== "cur" && dir !== "new") || name === "" || name.startsWith(".")) return null;
  const box = parts.slice(0, -2);
  if (box.some((part) => part === "cur" || part === "new" || part === "tmp")) return null;
  const match = INFO.exec(name);
  const unique = match ? name.slice(0, match.index) : name;
  const flags = match ? [...new Set(match[1])].sort().join("") : "";
  const boxPath = box.join("/");
  return {
    id: `${boxPath}/${unique}`,
    path,
    folder: folderName(box),
    flags,
    size,
    mtime,
  };
}

function folderName(box: string[]): string {
  if (box.length === 0) return "INBOX";
  // Maildir++ keeps every subfolder at the top, `.Lists.deno`; a verbatim layout nests them.
  if (box.length === 1 && box[0].startsWith(".")) return box[0].slice(1);
  return box.map((part) => part.replace(/^\./, "")).join("/");
}
