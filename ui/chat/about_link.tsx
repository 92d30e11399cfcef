import { Link } from "../common/link.tsx";
import { recordPath } from "../state/route.ts";

/** Props of {@linkcode AboutLink}. */
export interface AboutLinkProps {
  /** What the order said the work is about, such as `issues.issue/7`. */
  about: string;
  /** The project folder, as the address gives it. */
  project: string;
}

/** A record's key: a kind (`package.type`), a `/`, and a name. */
const RECORD_KEY = /^([a-z][a-z0-9-]*(?:\.[a-zA-Z][a-zA-Z0-9_-]*)+)\/(.+)$/s;

/**
 * What a conversation is about, in its header: a link to the record when it
 * names one by its key, else the words the order gave, as text.
 */
export function AboutLink(props: AboutLinkProps) {
  const record = RECORD_KEY.exec(props.about);
  return (
    <>
      About {record
        ? (
          <Link
            class="mono"
            href={recordPath(props.project, record[1], record[2])}
            label={`About the record ${props.about}`}
          >
            {props.about}
          </Link>
        )
        : <span class="mono">{props.about}</span>}
    </>
  );
}
