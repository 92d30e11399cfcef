import { codeSpans } from "./code_spans.ts";

/** Props of {@linkcode AgentWords}. */
export interface AgentWordsProps {
  /** The words, as the agent (or Sync) wrote them. */
  text: string;
}

/** Words with their backtick runs drawn as `<code>`, every part as text, never as HTML. */
export function AgentWords(props: AgentWordsProps) {
  return (
    <>
      {codeSpans(props.text).map((span, index) =>
        span.code ? <code key={index}>{span.text}</code> : span.text
      )}
    </>
  );
}
