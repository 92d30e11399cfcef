import type { PlanEntry } from "../../runtime/web/api/chat_types.ts";

/** Props of {@linkcode PlanView}. */
export interface PlanViewProps {
  /** The latest plan of its turn. */
  plan: PlanEntry;
}

const STEP_WORDS: Record<string, string> = {
  pending: "to do",
  in_progress: "doing",
  completed: "done",
  cancelled: "cancelled",
};

/** The agent's plan: its steps and how far each is. */
export function PlanView(props: PlanViewProps) {
  const { plan } = props;
  return (
    <article class="chat-entry plan" aria-label="Plan">
      <div class="chat-entry-who tertiary">Plan</div>
      <ol class="plan-steps">
        {plan.steps.map((step, index) => (
          <li key={index} class={`plan-step step-${step.status}`}>
            <span class="plan-mark" aria-hidden="true" />
            <span class="plan-content">{step.content}</span>
            <span class="tertiary plan-status">
              {Object.hasOwn(STEP_WORDS, step.status) ? STEP_WORDS[step.status] : step.status}
            </span>
          </li>
        ))}
      </ol>
      {plan.omitted ? <p class="tertiary">{plan.omitted} more steps not shown.</p> : null}
    </article>
  );
}
