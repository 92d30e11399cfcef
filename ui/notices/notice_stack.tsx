import { Link } from "../common/link.tsx";
import type { ProjectRoute } from "../state/route.ts";
import { dismissNotice } from "./dismissed_notices.ts";
import type { WindowNotice } from "./window_notices.ts";

/** Props of {@linkcode NoticeStack}. */
export interface NoticeStackProps {
  /** The window's notices not dismissed. */
  notices: WindowNotice[];
  /** Where the window is: a notice about the page shown is not repeated over it. */
  route: ProjectRoute;
}

/** The most notices drawn at once; the rest are counted below them. */
const MOST_SHOWN = 3;

/**
 * The window's quiet notices of what failed in the background or waits for
 * the person, at the foot of the navigator whatever page is shown: each says what, goes
 * to where it is acted on, and can be dismissed. New ones are read out
 * politely; none takes the focus.
 */
export function NoticeStack(props: NoticeStackProps) {
  const { route } = props;
  const shown = props.notices.filter((notice) =>
    !(notice.area === route.area && notice.about === route.id)
  );
  const more = shown.length - MOST_SHOWN;
  return (
    <section class="notice-stack" aria-label="Notices" aria-live="polite">
      {shown.length > 0 && (
        <ul class="notice-stack-list">
          {shown.slice(0, MOST_SHOWN).map((notice) => (
            <li key={notice.id} class="window-notice">
              <p class="window-notice-title">
                <Link href={notice.href} class="window-notice-link">{notice.title}</Link>
              </p>
              <p class="secondary window-notice-text">{notice.text}</p>
              <button
                type="button"
                class="button window-notice-dismiss"
                aria-label={`Dismiss: ${notice.title}`}
                title="Dismiss"
                onClick={() => dismissNotice(notice.id)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {more > 0 && (
        <p class="tertiary notice-stack-more">
          {more === 1 ? "1 more notice" : `${more} more notices`}: see the counts beside Extensions
          and Chat.
        </p>
      )}
    </section>
  );
}
