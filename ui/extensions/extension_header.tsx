import type { ExtensionPageResponse } from "../../runtime/web/api/types.ts";
import { Lamp } from "./lamp.tsx";

/** Props of {@linkcode ExtensionHeader}. */
export interface ExtensionHeaderProps {
  /** The page as the API answered it. */
  page: ExtensionPageResponse;
}

/** The top of an extension's page: its name, version and lamp, what to act on, what it does. */
export function ExtensionHeader(props: ExtensionHeaderProps) {
  const { page } = props;
  // An update that waits has its own notice below, with the button that approves it.
  const notices = page.lamp.notices.filter((notice) =>
    !(notice.reason === "awaits-approval" && page.update)
  );
  return (
    <header class="page-header">
      <div class="page-title-row">
        <h2 id="page-name" class="page-title">{page.name}</h2>
        <span class="tertiary page-version">{page.version}</span>
        <span class="page-lamp">
          <Lamp lamp={page.lamp} showLabel />
        </span>
      </div>
      <p class="tertiary mono page-id">{page.id}</p>
      {notices.length > 0 && (
        <ul class="page-notices">
          {notices.map((notice) => (
            <li key={`${notice.reason} ${notice.handler ?? ""}`} class="notice">{notice.text}</li>
          ))}
        </ul>
      )}
      <p class="secondary page-description">{page.description}</p>
    </header>
  );
}
