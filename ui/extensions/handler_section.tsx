import type { ExtensionPageResponse, ReceiptLine } from "../../runtime/web/api/types.ts";
import { momentWords } from "./page_words.ts";
import { Link } from "../common/link.tsx";
import { projectPath } from "../state/route.ts";
import { RunNow } from "./run_now.tsx";

/** Props of {@linkcode HandlerSection}. */
export interface HandlerSectionProps {
  /** The page as the API answered it. */
  page: ExtensionPageResponse;
  /** The project folder, for the link to the screen and for Run now. */
  project: string;
  /** Told the receipt a Run now left. */
  onReceipt: (receipt: ReceiptLine) => void;
}

/**
 * "What it adds": each handler with what it does and when it is called (on
 * the clock, as an agent's tool, at lifecycle moments), Run now, and its screen.
 */
export function HandlerSection(props: HandlerSectionProps) {
  const { adds, schedule, lamp, update } = props.page;
  const scheduled = new Set(schedule.rows.map((row) => row.handler));
  // Nothing runs where no approved version serves: say what to do.
  const blocked = update && update.serves === null
    ? `Nothing serves here until you approve ${update.version} above`
    : lamp.state === "dark"
    ? lamp.notices[0]?.text ?? "It cannot run here until a version of it is approved"
    : null;
  return (
    <section class="page-section" aria-labelledby="adds-title">
      <h3 id="adds-title" class="section-title">What it adds</h3>
      {adds.handlers.length === 0 && !adds.screen && (
        <p class="secondary">No handlers and no screen: it runs no code of its own.</p>
      )}
      {adds.handlers.length > 0 && (
        <ul class="plain-list handler-list" aria-label="Handlers">
          {adds.handlers.map((handler) => {
            const when = [
              ...(scheduled.has(handler.name) ? ["On the clock"] : []),
              ...(handler.agentTool !== null ? ["A tool for agents"] : []),
              ...handler.moments.map(momentWords),
            ];
            return (
              <li key={handler.name} class="handler-item">
                <div class="handler-top">
                  <code class="handler-name">{handler.name}</code>
                  {when.length > 0 && <span class="tertiary">{when.join(" · ")}</span>}
                </div>
                <p class="secondary">{handler.description}</p>
                {handler.agentTool !== null && (
                  <p class="tertiary">Tells an agent: {handler.agentTool}</p>
                )}
                <RunNow
                  id={props.page.id}
                  project={props.project}
                  handler={handler}
                  blocked={blocked}
                  onReceipt={props.onReceipt}
                />
              </li>
            );
          })}
        </ul>
      )}
      {adds.screen && (
        <p class="secondary screen-line">
          A screen of its own <span class="tertiary mono">{adds.screen}</span>
          {props.page.lamp.state !== "dark" && (
            <>
              {" · "}
              <Link href={projectPath(props.project, "screen", props.page.id)}>Show it</Link>
            </>
          )}
        </p>
      )}
    </section>
  );
}
