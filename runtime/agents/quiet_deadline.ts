/**
 * The deadline of a call an agent must answer while it may still be getting
 * ready (`initialize`): counted from the agent's last sign of life rather
 * than from when the call was sent, so that an agent that is busy — npm
 * downloading it on first use, a large program loading — is not given up
 * on while it still says something, and bounded overall, so that one that
 * only talks is given up on too.
 *
 * @module
 */

/** What is known of an agent's signs of life. */
export interface SignsOfLife {
  /** When the agent last wrote anything (stdout or stderr), in ms since the epoch; null when never. */
  readonly lastHeardMs: number | null;
  /** True while npm is known to be downloading the agent: it may then be silent longer. */
  readonly downloading: boolean;
}

/** Options for {@linkcode quietDeadline}. */
export interface QuietDeadlineOptions {
  /** How long the agent may say nothing, in ms. */
  quietMs: number;
  /**
   * How long it may say nothing while npm downloads it, in ms: npm writes
   * one line per request, after the request, so a large archive arrives in
   * silence.
   */
  downloadQuietMs: number;
  /** How long the call may take in all, however much the agent says, in ms. */
  maxMs: number;
  /** The agent's signs of life; without them the deadline counts from the start. */
  signs?: SignsOfLife;
  /** The clock, in ms. */
  now?: () => number;
}

/** A deadline that is watched until it passes or is cleared. */
export interface QuietDeadline {
  /** Resolves, once the deadline has passed, with why: words to follow "did not answer …". */
  passed: Promise<string>;
  /** Stops watching: the call was answered. */
  clear(): void;
}

/**
 * Watches the deadline of one call: it passes when the agent has said
 * nothing for `quietMs` (`downloadQuietMs` while npm downloads it), or
 * when `maxMs` have passed since the start.
 *
 * @param options The bounds, the agent's signs of life, the clock.
 */
export function quietDeadline(options: QuietDeadlineOptions): QuietDeadline {
  const now = options.now ?? Date.now;
  const start = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cleared = false;
  const passed = new Promise<string>((resolve) => {
    const check = () => {
      if (cleared) return;
      const heard = Math.max(start, options.signs?.lastHeardMs ?? start);
      const downloading = options.signs?.downloading === true;
      const quietMs = downloading
        ? Math.max(options.quietMs, options.downloadQuietMs)
        : options.quietMs;
      const end = start + options.maxMs;
      const due = Math.min(heard + quietMs, end);
      const at = now();
      if (at < due) {
        timer = setTimeout(check, due - at);
        return;
      }
      if (due === end && heard + quietMs > end) {
        resolve(`within ${seconds(options.maxMs)}, though it was still writing`);
      } else if (heard === start) {
        resolve(`within ${seconds(quietMs)}`);
      } else {
        resolve(
          `and wrote nothing for ${seconds(quietMs)}` +
            (downloading ? " while npm was downloading it" : ""),
        );
      }
    };
    timer = setTimeout(check, Math.min(options.quietMs, options.maxMs));
  });
  return {
    passed,
    clear() {
      cleared = true;
      clearTimeout(timer);
    },
  };
}

/** A duration in words: `1.5 s`, `10 min`. */
function seconds(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0
    ? `${ms / 60_000} min`
    : `${Number((ms / 1000).toFixed(1))} s`;
}
