/**
 * What an agent is doing while a person waits for it: the part of a live
 * session that is neither its pointer nor its transcript. It lives in memory
 * only, for the length of a turn (or of raising the agent): it is told on
 * the bus as `activity` facts and answered with a session's view, never
 * written to the installation.
 *
 * Declared here, below every domain, because it travels beyond the agents
 * domain that keeps it: in the facts of the event stream and in the web API.
 *
 * @module
 */

/**
 * Where the agent has got to:
 * - `starting`: its process runs and has not answered `initialize` yet;
 * - `downloading`: the same, while npm (run by `npx` or `npm exec`) fetches
 *   the agent's package, which it does on first use;
 * - `working`: a turn is under way.
 */
export type AgentActivityPhase = "starting" | "downloading" | "working";

/** What the agent is doing, as a page shows it under the running turn. */
export interface AgentActivity {
  /** Where it has got to. */
  phase: AgentActivityPhase;
  /** When this phase began, as an ISO 8601 time. */
  since: string;
  /**
   * When the agent last said anything — a message on stdout (ACP) or a line
   * on stderr — as an ISO 8601 time; null when it has said nothing yet.
   */
  lastHeardAt: string | null;
  /** Where it was last heard: its messages (`stdout`) or its log (`stderr`). */
  heardOn: "stdout" | "stderr" | null;
  /** The end of what it wrote on stderr, as text (bounded; control characters removed). */
  stderrTail: string;
  /**
   * While `downloading`: the package being fetched, as the agent's command
   * names it (`@zed-industries/codex-acp`), or null when the command does
   * not say; and the tool that fetches it.
   */
  download: { package: string | null; tool: "npx" | "npm" } | null;
}
