import type { ComponentChildren } from "preact";
import { navigate } from "../state/route.ts";

/** Props of {@linkcode Link}. */
export interface LinkProps {
  /** The app address it goes to. */
  href: string;
  /** Its class. */
  class?: string;
  /** Marks the current page or selection for assistive technology. */
  current?: "page" | "true";
  /** What it shows. */
  children: ComponentChildren;
  /** Its accessible name, when its text is not enough. */
  label?: string;
  /** Its tooltip: the name again where the link shows only a glyph. */
  title?: string;
}

/** A link inside the app: a real `<a>` (open in a new tab works), followed without a reload. */
export function Link(props: LinkProps) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current}
      aria-label={props.label}
      title={props.title}
      onClick={(event) => {
        if (
          event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey
        ) {
          return;
        }
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
