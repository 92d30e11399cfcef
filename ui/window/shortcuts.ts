/**
 * The window's keyboard shortcuts, as the shortcuts dialog lists them. Each
 * key is a sequence of presses (`g` then `e`), one entry a press.
 *
 * @module
 */

/** One shortcut: the keys pressed one after another, and what they do. */
export interface Shortcut {
  /** The presses, in order, as printed on the keys. */
  keys: readonly string[];
  /** What it does, in words. */
  does: string;
}

/** A group of shortcuts, under where they work. */
export interface ShortcutGroup {
  /** Where they work. */
  title: string;
  /** Its shortcuts. */
  shortcuts: readonly Shortcut[];
}

/** Every shortcut of a project's window. None but Ctrl+K fires while the focus is in a field. */
export const windowShortcuts: readonly ShortcutGroup[] = [
  {
    title: "Anywhere in the window",
    shortcuts: [
      {
        keys: ["Ctrl+K"],
        does: "Find a place, an extension, a conversation or an action (⌘K on a Mac)",
      },
      { keys: ["/"], does: "Filter the list, or search Records" },
      { keys: ["g", "e"], does: "Go to Extensions" },
      { keys: ["g", "d"], does: "Go to Devices" },
      { keys: ["g", "c"], does: "Go to Chat" },
      { keys: ["g", "r"], does: "Go to Records" },
      { keys: ["g", "p"], does: "Go to all projects" },
      { keys: ["?"], does: "Show these shortcuts" },
    ],
  },
  {
    title: "In a list",
    shortcuts: [
      { keys: ["↑"], does: "The row above" },
      { keys: ["↓"], does: "The row below; from the filter, the first row" },
      { keys: ["Home"], does: "The first row" },
      { keys: ["End"], does: "The last row" },
      { keys: ["Enter"], does: "Open the row; from the filter, the first row" },
      { keys: ["Esc"], does: "Empty the filter, then leave it" },
    ],
  },
];
