import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** Props of {@linkcode Dialog}. */
export interface DialogProps {
  /** Its title, which names it for assistive technology. */
  title: string;
  /** Called when it is dismissed: Escape, or a Cancel button that calls it. */
  onClose: () => void;
  /** Its content; the primary action carries `autofocus`, so Enter takes it. */
  children: ComponentChildren;
  /** Its class, for its width. */
  class?: string;
}

/**
 * A modal dialog, open while it is rendered: the browser's own `<dialog>`
 * shown modal, so the page behind is inert and Tab stays inside it. Escape
 * closes it, and focus goes back to what had it before it opened.
 */
export function Dialog(props: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current!;
    const before = document.activeElement as HTMLElement | null;
    dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose.current();
    };
    dialog.addEventListener("cancel", cancel);
    return () => {
      dialog.removeEventListener("cancel", cancel);
      if (dialog.open) dialog.close();
      if (before && before.isConnected) before.focus();
    };
  }, []);
  const titleId = `dialog-${props.title.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`;
  return (
    <dialog ref={ref} class={`dialog ${props.class ?? ""}`} aria-labelledby={titleId}>
      <h2 id={titleId} class="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  );
}
