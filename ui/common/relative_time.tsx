import { signal } from "@preact/signals";

/** The time relative times are measured from; moves on every 30 s while the page is open. */
const now = signal(Date.now());
setInterval(() => now.value = Date.now(), 30_000);

/** Props of {@linkcode RelativeTime}. */
export interface RelativeTimeProps {
  /** The time, as an ISO 8601 string. */
  iso: string;
}

/** "2 min ago", with the full time in the reader's zone on hover and on focus. */
export function RelativeTime(props: RelativeTimeProps) {
  const at = new Date(props.iso);
  if (Number.isNaN(at.getTime())) return <time>{props.iso}</time>;
  const absolute = at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
  return (
    <time
      class="relative-time"
      dateTime={props.iso}
      title={absolute}
      tabIndex={0}
      data-absolute={absolute}
    >
      {relativeWords(now.value - at.getTime(), absolute)}
    </time>
  );
}

/** How long ago, in words; the absolute time past a week. */
export function relativeWords(ago: number, absolute: string): string {
  const seconds = Math.round(ago / 1000);
  if (seconds < 45) return "just now";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return hours === 1 ? "1 hour ago" : `${hours} hours ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return days === 1 ? "yesterday" : `${days} days ago`;
  return absolute;
}
