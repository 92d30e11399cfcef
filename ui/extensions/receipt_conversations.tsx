import { Fragment } from "preact";
import type { ReceiptLine } from "../../runtime/web/api/types.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";

/** Props of {@linkcode ReceiptConversations}. */
export interface ReceiptConversationsProps {
  /** The receipt; shows nothing when its call ordered no work. */
  receipt: ReceiptLine;
  /** The project folder, as the address gives it. */
  project: string;
}

/**
 * The conversations a call began, on its receipt's row: each order it
 * placed is performed by a session of the same key, opened in Chat.
 */
export function ReceiptConversations(props: ReceiptConversationsProps) {
  const keys = props.receipt.ordered ?? [];
  if (keys.length === 0) return null;
  const href = (key: string) => projectPath(props.project, "chat", key);
  return (
    <p class="receipt-conversations secondary">
      {keys.length === 1 ? <Link href={href(keys[0])}>The conversation it began</Link> : (
        <>
          The conversations it began: {keys.map((key, index) => (
            <Fragment key={key}>
              {index > 0 && " · "}
              <Link href={href(key)} label={`Conversation ${index + 1} it began`}>
                {index + 1}
              </Link>
            </Fragment>
          ))}
        </>
      )}
    </p>
  );
}
