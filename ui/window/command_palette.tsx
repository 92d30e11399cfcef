import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatListResponse } from "../../runtime/web/api/chat_types.ts";
import { getJson } from "../api/client.ts";
import { Dialog } from "../common/dialog.tsx";
import type { ProjectState } from "../state/project_state.ts";
import { requestedAction } from "../state/requested_action.ts";
import { navigate, projectPath } from "../state/route.ts";
import { type PaletteItem, paletteItems } from "./palette_items.ts";

/** Props of {@linkcode CommandPalette}. */
export interface CommandPaletteProps {
  /** The project's live state: its extensions. */
  state: ProjectState;
  /** Closes it: Escape, or once an entry is chosen. */
  onClose: () => void;
  /** Shows the keyboard shortcuts, its entry's action. */
  onShortcuts: () => void;
}

/**
 * Ctrl+K (⌘K): one field that finds any place, extension or conversation of
 * the project, and the actions Install and New conversation. A combobox over
 * a listbox: the focus stays in the field, Up and Down move the active entry
 * (`aria-activedescendant`), Enter or a click chooses it, Escape closes.
 */
export function CommandPalette(props: CommandPaletteProps) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [chat, setChat] = useState<ChatListResponse | null>(null);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    // Conversations are read when the palette opens; extensions are the window's, live.
    getJson<ChatListResponse>("/api/chat", { project: props.state.project })
      .then(setChat, () => setChat(null));
  }, []);
  const items = paletteItems(
    {
      extensions: props.state.extensions.value,
      chat,
      pathOf: (area, id) => projectPath(props.state.project, area, id),
    },
    query,
  );
  const current = Math.min(active, Math.max(items.length - 1, 0));
  useEffect(() => {
    list.current?.querySelector(`[aria-selected="true"]`)?.scrollIntoView({ block: "nearest" });
  }, [current, query]);
  const choose = (item: PaletteItem) => {
    props.onClose();
    const target = item.target;
    if (target.kind === "shortcuts") {
      props.onShortcuts();
      return;
    }
    navigate(target.path);
    if (target.action) requestedAction.value = target.action;
  };
  const idOf = (item: PaletteItem) => `palette-${item.key.replace(/[^a-z0-9-]+/gi, "-")}`;
  const groups = [...new Set(items.map((item) => item.group))];
  return (
    <Dialog title="Go to or do" onClose={props.onClose} class="palette">
      <input
        type="text"
        class="input palette-input"
        role="combobox"
        aria-label="Find a place, an extension, a conversation or an action"
        aria-expanded={items.length > 0}
        aria-controls="palette-list"
        aria-autocomplete="list"
        aria-activedescendant={items.length > 0 ? idOf(items[current]) : undefined}
        placeholder="Find a place, an extension, a conversation or an action"
        autocomplete="off"
        spellcheck={false}
        autofocus
        value={query}
        onInput={(event) => {
          setQuery(event.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            const step = event.key === "ArrowDown" ? 1 : -1;
            setActive(Math.min(Math.max(current + step, 0), items.length - 1));
          } else if (event.key === "Enter" && items.length > 0) {
            event.preventDefault();
            choose(items[current]);
          }
        }}
      />
      {items.length === 0
        ? <p class="secondary palette-empty">Nothing matches “{query.trim()}”.</p>
        : (
          <ul id="palette-list" class="palette-list" role="listbox" aria-label="Results" ref={list}>
            {groups.map((group) => (
              <li
                key={group}
                role="group"
                aria-labelledby={`palette-group-${group.replace(" ", "-")}`}
              >
                <span id={`palette-group-${group.replace(" ", "-")}`} class="palette-group">
                  {group}
                </span>
                <ul class="palette-rows" role="none">
                  {items.filter((item) => item.group === group).map((item) => {
                    const index = items.indexOf(item);
                    return (
                      <li
                        key={item.key}
                        id={idOf(item)}
                        role="option"
                        aria-selected={index === current}
                        class="palette-item"
                        onMouseMove={() => index !== current && setActive(index)}
                        onClick={() => choose(item)}
                      >
                        <span class="primary palette-label">{item.label}</span>
                        <span class="tertiary palette-detail">{item.detail}</span>
                      </li>
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        )}
      <p class="visually-hidden" role="status">
        {query.trim() === "" ? "" : `${items.length} found`}
      </p>
    </Dialog>
  );
}
