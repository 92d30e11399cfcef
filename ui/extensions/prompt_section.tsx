import { Markdown } from "../common/markdown.tsx";

/** Props of {@linkcode PromptSection}. */
export interface PromptSectionProps {
  /** The prompt file, as the manifest names it, and its text. */
  prompt: { file: string; text: string };
}

/** What the package tells an agent: its prompt file, drawn from a small part of markdown, never as HTML. */
export function PromptSection(props: PromptSectionProps) {
  const { file, text } = props.prompt;
  return (
    <section class="page-section" aria-labelledby="prompt-title">
      <div class="section-head">
        <h3 id="prompt-title" class="section-title">What it tells an agent</h3>
        <span class="tertiary mono">{file}</span>
      </div>
      {text.trim() === ""
        ? <p class="tertiary">The file is empty or cannot be read.</p>
        : (
          <div class="prompt-text">
            <Markdown text={text} />
          </div>
        )}
    </section>
  );
}
