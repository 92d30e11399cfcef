import type { ProjectState } from "../state/project_state.ts";

/** Props of {@linkcode ChatArea}. */
export interface ChatAreaProps {
  /** The project's live state. */
  state: ProjectState;
}

/** The Chat area: the project's conversations with agents; none can be started from here yet. */
export function ChatArea(_props: ChatAreaProps) {
  return (
    <>
      <section class="list-column" aria-label="Conversations">
        <header class="column-header">
          <h1 class="column-title">Chat</h1>
        </header>
        <p class="empty secondary">No conversations in this project.</p>
      </section>
      <main class="detail-column">
        <div class="empty-detail">
          <p class="secondary">
            Conversations with agents will show here. Meanwhile, extensions do this project's
            background work: see Extensions.
          </p>
        </div>
      </main>
    </>
  );
}
