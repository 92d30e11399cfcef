import type { ExtensionSummary } from "../../runtime/web/api/types.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";
import { Lamp } from "./lamp.tsx";

/** Props of {@linkcode ExtensionRow}. */
export interface ExtensionRowProps {
  /** The project folder. */
  project: string;
  /** The package. */
  extension: ExtensionSummary;
  /** It is the one shown in the detail column. */
  selected: boolean;
}

/**
 * One installed package in the list: its lamp's circle, its name and
 * version, the lamp's words when it is not steady, what it does, and a red
 * lamp's notice. Names line up whatever the lamp says.
 */
export function ExtensionRow(props: ExtensionRowProps) {
  const { extension } = props;
  const quiet = extension.lamp.state === "steady";
  return (
    <li class={`extension-row ${props.selected ? "selected" : ""}`}>
      <Link
        href={projectPath(props.project, "extensions", extension.id)}
        class="extension-link"
        current={props.selected ? "page" : undefined}
      >
        {
          /* The name comes first, to read and to look along; the lamp's circle is drawn before it
            and its words after it, as a trailing badge (extensions.css). */
        }
        <span class="extension-row-top">
          <span class="primary extension-name">{extension.name}</span>
          <Lamp lamp={extension.lamp} showLabel={!quiet} />
          {extension.version && <span class="tertiary extension-version">{extension.version}</span>}
        </span>
        <span class="secondary extension-description">{extension.description}</span>
        {extension.lamp.notices.map((notice) => (
          <span key={`${notice.reason} ${notice.handler ?? ""}`} class="notice">{notice.text}</span>
        ))}
      </Link>
    </li>
  );
}
