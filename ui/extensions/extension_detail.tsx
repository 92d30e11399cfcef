import { useEffect, useState } from "preact/hooks";
import type { ExtensionPageResponse } from "../../runtime/web/api/types.ts";
import { getJson, messageOf } from "../api/client.ts";
import type { ProjectState } from "../state/project_state.ts";
import { Lamp } from "./lamp.tsx";

/** Props of {@linkcode ExtensionDetail}. */
export interface ExtensionDetailProps {
  /** The project's live state. */
  state: ProjectState;
  /** The package id. */
  id: string;
}

/** An extension's page in the detail column. */
export function ExtensionDetail(props: ExtensionDetailProps) {
  const [page, setPage] = useState<ExtensionPageResponse | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<ExtensionPageResponse>(`/api/extensions/${encodeURIComponent(props.id)}`, {
      project: props.state.project,
    }).then(setPage, (thrown) => setError(messageOf(thrown)));
  }, [props.id]);
  if (error) return <p class="error" role="alert">{error}</p>;
  if (!page) return null;
  return (
    <article class="extension-page">
      <header>
        <h2>{page.name}</h2>
        <Lamp lamp={page.lamp} showLabel />
        <p class="secondary">{page.description}</p>
      </header>
    </article>
  );
}
