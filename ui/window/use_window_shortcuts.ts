import { useEffect } from "preact/hooks";
import { navigate, projectPath } from "../state/route.ts";

/** Options of {@linkcode useWindowShortcuts}. */
export interface WindowShortcutsOptions {
  /** The project folder, as the address gives it. */
  project: string;
  /** Shows the shortcuts dialog. */
  onHelp: () => void;
  /** Opens the command palette. */
  onPalette: () => void;
}

/** How long after `g` its second key still counts. */
const SEQUENCE_MS = 1500;

/** Inputs that take no typing: keys pressed on them are the window's. */
const UNTYPED_INPUTS: ReadonlySet<string> = new Set([
  "button",
  "checkbox",
  "color",
  "file",
  "radio",
  "range",
  "reset",
  "submit",
]);

/**
 * The window's shortcuts (`windowShortcuts` lists them): `/` focuses the
 * list's filter (Records' search box), `g` then `e`, `d`, `c`, `r` or `p` goes to
 * Extensions, Devices, Chat, Records or all projects, `?` shows the shortcuts, and Down with nothing focused goes
 * into the list. None fires while the person types in a field, while a
 * dialog is open, or with Ctrl, Alt or the command key held, so they never
 * take a letter from someone typing or the browser's own shortcuts. Ctrl+K
 * (⌘K on a Mac) opens the command palette, also from a field, as in an
 * editor; not while a dialog is open.
 */
export function useWindowShortcuts(options: WindowShortcutsOptions): void {
  const { project, onHelp, onPalette } = options;
  useEffect(() => {
    let pendingG = 0;
    const keydown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return;
      if (document.querySelector("dialog[open]")) return;
      if (
        (event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey &&
        event.key.toLowerCase() === "k"
      ) {
        event.preventDefault();
        onPalette();
        return;
      }
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (typing(event.target)) return;
      const afterG = pendingG > 0 && event.timeStamp - pendingG <= SEQUENCE_MS;
      pendingG = 0;
      if (afterG) {
        const path = event.key === "e"
          ? projectPath(project, "extensions")
          : event.key === "d"
          ? projectPath(project, "devices")
          : event.key === "c"
          ? projectPath(project, "chat")
          : event.key === "r"
          ? projectPath(project, "records")
          : event.key === "p"
          ? "/"
          : null;
        if (path) {
          event.preventDefault();
          navigate(path);
          return;
        }
      }
      if (event.key === "g") {
        pendingG = event.timeStamp;
      } else if (event.key === "/") {
        const filter = document.querySelector<HTMLInputElement>("[data-list-filter]");
        if (!filter) return;
        event.preventDefault();
        filter.focus();
        filter.select();
      } else if (event.key === "?") {
        event.preventDefault();
        onHelp();
      } else if (event.key === "ArrowDown" && event.target === document.body) {
        // Nothing has the focus (after going to another area): Down goes into the list.
        const row = document.querySelector<HTMLElement>(".list-column a[tabindex='0']");
        if (!row) return;
        event.preventDefault();
        row.focus();
      }
    };
    document.addEventListener("keydown", keydown);
    return () => document.removeEventListener("keydown", keydown);
  }, [project, onHelp, onPalette]);
}

/** Whether keys pressed on `target` are someone typing: a text field, a choice, editable text. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !UNTYPED_INPUTS.has(target.type);
  return target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement ||
    target.isContentEditable;
}
