import { codeSpans } from "./code_spans.ts";
import { webLinks } from "./web_links.ts";

/** Props of {@linkcode AgentWords}. */
export interface AgentWordsProps {
  /** The words, as the agent (or Sync) wrote them. */
  text: string;
}

/**
 * Words with their backtick runs drawn as `<code>` and their http(s)
 * addresses as links that open apart, every part as text, never as HTML.
 */
export function AgentWords(props: AgentWordsProps) {
  return (
    <>
      {codeSpans(props.text).map((span, index) =>
        span.code ? <code key={index}>{span.text}</code> : (
          webLinks(span.text).map((run, at) =>
            run.href === undefined
              ? run.text
              : (
                <a key={`${index}-${at}`} href={run.href} rel="noreferrer" target="_blank">
                  {run.text}
                </a>
              )
          )
        )
      )}
    </>
  );
}
