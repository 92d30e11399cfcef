/**
 * What an agent is doing, kept while it lives and told while a person waits
 * for it: when it was last heard, the end of its stderr, and whether npm is
 * downloading it. Told at most every `AGENT_LIMITS.activityEveryMs`, never
 * once per piece of output, and never written to the installation: it is
 * news for the pages watching, gone with the process.
 *
 * Both of the agent's streams count as hearing from it: its ACP messages on
 * stdout, and what it logs on stderr. An agent that is busy (npm fetching
 * it, a model call being retried) often says so only on stderr, and a
 * person asking "is it doing anything?" is answered by either.
 *
 * @module
 */
import type { AgentActivity, AgentActivityPhase } from "../agent_activity.ts";
import type { AgentPeer } from "./agent_peer.ts";
import { AGENT_LIMITS } from "./agent_limits.ts";
import { npmFetchLine, type NpmRunner } from "./npm_fetch.ts";
import type { SignsOfLife } from "./quiet_deadline.ts";
import { plainText } from "./stderr_text.ts";

/** Options for an {@linkcode ActivityTracker}. */
export interface ActivityTrackerOptions {
  /** Tells what the agent is doing, or null once nobody waits for it any more. */
  publish: (activity: AgentActivity | null) => void;
  /** How npm runs the agent, when it does (`npx`): what a download is of. */
  runner?: NpmRunner | null;
  /** The clock, in ms. */
  now?: () => number;
  /** How often at most it is told, in ms; `AGENT_LIMITS.activityEveryMs` by default. */
  everyMs?: number;
  /** Characters of stderr told, from the end; `AGENT_LIMITS.activityTailChars` by default. */
  tailChars?: number;
}

/**
 * How much sooner than this a later hearing is told: a page counts the
 * seconds itself from the last time it was told, so a second late is close
 * enough, and a streaming turn is not told many times a second.
 */
const HEARD_STEP_MS = 1_000;
/** Characters of a line kept while its end has not come yet: enough to read npm's line. */
const MAX_PARTIAL_LINE = 2_000;

/**
 * One agent process's activity. It is told only while shown
 * ({@linkcode ActivityTracker.show} to {@linkcode ActivityTracker.rest});
 * what it hears meanwhile is kept for the next time.
 */
export class ActivityTracker implements SignsOfLife {
  #publish: (activity: AgentActivity | null) => void;
  #runner: NpmRunner | null;
  #now: () => number;
  #everyMs: number;
  #tailChars: number;
  #phase: AgentActivityPhase = "starting";
  #since: number;
  #heardAt: number | null = null;
  #heardOn: "stdout" | "stderr" | null = null;
  #raw = "";
  #partial = "";
  #downloading = false;
  #shown = false;
  #toldAt = 0;
  #toldHeardAt: number | null = null;
  #dirty = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * A tracker of an agent that has not said anything yet.
   *
   * @param options Where it is told, what npm runs, the clock and the bounds.
   */
  constructor(options: ActivityTrackerOptions) {
    this.#publish = options.publish;
    this.#runner = options.runner ?? null;
    this.#now = options.now ?? Date.now;
    this.#everyMs = options.everyMs ?? AGENT_LIMITS.activityEveryMs;
    this.#tailChars = options.tailChars ?? AGENT_LIMITS.activityTailChars;
    this.#since = this.#now();
  }

  /** When the agent last wrote anything, in ms; null when never. */
  get lastHeardMs(): number | null {
    return this.#heardAt;
  }

  /** True while npm downloads the agent, before it has answered anything. */
  get downloading(): boolean {
    return this.#downloading && this.#phase !== "working";
  }

  /**
   * Shows the activity from now on, in a phase: `starting` when the agent is
   * being raised, `working` when a turn begins. Told at once.
   *
   * @param phase Where the agent has got to.
   */
  show(phase: "starting" | "working"): void {
    const was = this.#phase;
    this.#phase = phase === "starting" && this.#downloading ? "downloading" : phase;
    if (this.#phase !== was || !this.#shown) this.#since = this.#now();
    this.#shown = true;
    this.#tell(true);
  }

  /**
   * The agent answered `initialize`: whatever npm was downloading has
   * arrived, and the agent is opening its session.
   */
  ready(): void {
    if (!this.#downloading && this.#phase !== "downloading") return;
    this.#downloading = false;
    if (this.#phase === "downloading") {
      this.#phase = "starting";
      this.#since = this.#now();
    }
    this.#tell(true);
  }

  /**
   * Nobody waits for the agent now (its turn ended): what was not told yet is
   * told, then null once, then nothing until shown again.
   */
  rest(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    // What was heard and not told yet is told first: the facts say everything in order.
    this.#flush();
    this.#dirty = false;
    if (!this.#shown) return;
    this.#shown = false;
    this.#publish(null);
  }

  /**
   * The agent wrote on stdout: it was heard.
   */
  heardOnStdout(): void {
    this.#heard("stdout");
  }

  /**
   * The agent wrote on stderr: it was heard, its tail grows, and a line of
   * npm's may say it is being downloaded.
   *
   * @param text A piece of stderr, as text.
   */
  stderr(text: string): void {
    this.#raw += text;
    // Kept raw a little past the bound: the cleaning happens when it is told.
    if (this.#raw.length > this.#tailChars * 2) this.#raw = this.#raw.slice(-this.#tailChars * 2);
    const lines = (this.#partial + text).split("\n");
    this.#partial = lines.pop()!.slice(-MAX_PARTIAL_LINE);
    for (const line of lines) {
      if (npmFetchLine(line)?.download && !this.#downloading) {
        this.#downloading = true;
        if (this.#phase === "starting") {
          this.#phase = "downloading";
          this.#since = this.#now();
        }
      }
    }
    this.#dirty = true;
    this.#heard("stderr");
  }

  /** What the agent is doing, as told; null while it is not shown. */
  snapshot(): AgentActivity | null {
    if (!this.#shown) return null;
    const phase = this.#phase === "downloading" && !this.#downloading ? "starting" : this.#phase;
    return {
      phase,
      since: new Date(this.#since).toISOString(),
      lastHeardAt: this.#heardAt === null ? null : new Date(this.#heardAt).toISOString(),
      heardOn: this.#heardOn,
      stderrTail: cleanTail(this.#raw, this.#tailChars),
      download: phase === "downloading"
        ? { package: this.#runner?.package ?? null, tool: this.#runner?.tool ?? "npm" }
        : null,
    };
  }

  #heard(on: "stdout" | "stderr"): void {
    this.#heardAt = this.#now();
    if (on !== this.#heardOn) this.#dirty = true;
    this.#heardOn = on;
    if (this.#toldHeardAt === null || this.#heardAt - this.#toldHeardAt >= HEARD_STEP_MS) {
      this.#dirty = true;
    }
    if (this.#dirty) this.#tell(false);
  }

  /** Tells the activity now, or once `everyMs` has passed since it was last told. */
  #tell(now: boolean): void {
    if (!this.#shown) return;
    this.#dirty = true;
    if (this.#timer !== undefined) return;
    const wait = now ? 0 : this.#toldAt + this.#everyMs - this.#now();
    if (wait <= 0) {
      this.#flush();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, wait);
  }

  #flush(): void {
    if (!this.#shown || !this.#dirty) return;
    this.#dirty = false;
    this.#toldAt = this.#now();
    this.#toldHeardAt = this.#heardAt;
    this.#publish(this.snapshot());
  }
}

/**
 * The end of an agent's stderr as text a page shows: terminal escapes
 * removed, a line rewritten with carriage returns shown as it ended, other
 * control characters dropped, cut at a line's start to at most `max`.
 */
export function cleanTail(raw: string, max: number): string {
  const text = plainText(raw);
  if (text.length <= max) return text;
  const end = text.slice(-max);
  const start = end.indexOf("\n");
  return start >= 0 && start < end.length - 1 ? end.slice(start + 1) : end;
}

/**
 * The agent's process with its stdout watched: each piece it writes is a
 * sign of life for `tracker`, passed on unchanged.
 *
 * @param peer The agent's process.
 * @param tracker What hears it.
 */
export function watchedPeer(peer: AgentPeer, tracker: ActivityTracker): AgentPeer {
  return {
    stdin: peer.stdin,
    stdout: peer.stdout.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          tracker.heardOnStdout();
          controller.enqueue(chunk);
        },
      }),
    ),
    exited: peer.exited,
    stderrTail: () => peer.stderrTail(),
    stop: () => peer.stop(),
  };
}
