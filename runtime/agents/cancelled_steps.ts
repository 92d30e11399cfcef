/**
 * What a person's cancel stopped in a turn. ACP has no status for a tool
 * call or a plan step that a cancel stopped: an agent leaves them as they
 * were (`in_progress`), or reports them `failed`, and either would show a
 * cancelled turn as still doing something, or as gone wrong. The protocol
 * asks the client to mark the calls not finished as cancelled itself; this
 * keeps a turn's tool calls and plan as they are reported, notes which were
 * unfinished when the person cancelled, and at the turn's end answers the
 * entries that mark them `cancelled`.
 *
 * @module
 */
import type { PlanEntry, ToolCallStatus, TranscriptEntry } from "../transcript.ts";

/** One turn's tool calls and plan, and what a cancel found unfinished in it. */
export class CancelledSteps {
  #calls = new Map<string, ToolCallStatus>();
  #plan: PlanEntry | null = null;
  #unfinished: Set<string> | null = null;

  /** A new turn: nothing of the one before counts. */
  begin(): void {
    this.#calls.clear();
    this.#plan = null;
    this.#unfinished = null;
  }

  /**
   * An entry of the turn, as it is emitted.
   *
   * @param entry The entry.
   */
  see(entry: TranscriptEntry): void {
    if (entry.replay) return;
    if (entry.kind === "tool_call") this.#calls.set(entry.toolCallId, entry.status);
    else if (entry.kind === "tool_call_update" && entry.status !== undefined) {
      if (this.#calls.has(entry.toolCallId)) this.#calls.set(entry.toolCallId, entry.status);
    } else if (entry.kind === "plan") this.#plan = entry;
  }

  /** The person cancelled: the calls not finished now are the cancel's. */
  cancel(): void {
    const unfinished = this.#unfinished ?? new Set<string>();
    for (const [id, status] of this.#calls) {
      if (status === "pending" || status === "in_progress") unfinished.add(id);
    }
    this.#unfinished = unfinished;
  }

  /**
   * The entries that mark what the cancel stopped, to emit before the
   * turn's last entry: each call that was unfinished at the cancel and did
   * not complete after it, and the plan with its steps in progress, as
   * `cancelled`. None when the turn was not cancelled.
   *
   * @param at The time to give them, ISO 8601.
   */
  closing(at: string): TranscriptEntry[] {
    const unfinished = this.#unfinished;
    if (unfinished === null) return [];
    const entries: TranscriptEntry[] = [];
    for (const id of unfinished) {
      const status = this.#calls.get(id);
      if (status === "completed" || status === "cancelled") continue;
      entries.push({ at, kind: "tool_call_update", toolCallId: id, status: "cancelled" });
    }
    const plan = this.#plan;
    if (plan !== null && plan.steps.some((step) => step.status === "in_progress")) {
      entries.push({
        ...plan,
        at,
        steps: plan.steps.map((step) =>
          step.status === "in_progress" ? { ...step, status: "cancelled" } : step
        ),
      });
    }
    this.begin();
    return entries;
  }
}
