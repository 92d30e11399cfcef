import { useEffect, useState } from "preact/hooks";
import { AgentsSection } from "../agents/agents_section.tsx";
import {
  projects,
  projectsError,
  reloadProjects,
  watchProjectList,
} from "../state/projects_state.ts";
import { OpenFolderForm } from "./open_folder_form.tsx";
import { ProjectList } from "./project_list.tsx";

/** The start page: the projects the clock runs, the ones opened lately, and a way to open another. */
export function StartPage() {
  useEffect(() => {
    document.title = "Sync";
    // Live: an install or an opening anywhere (the CLI's too) updates the lists in place.
    return watchProjectList();
  }, []);
  const known = projects.value;
  const [browsing, setBrowsing] = useState(false);
  // The empty lists' button: the folder browser, with the focus on it.
  const chooseFolder = (
    <button
      type="button"
      class="button"
      onClick={() => {
        setBrowsing(true);
        requestAnimationFrame(() => {
          const browser = document.getElementById("open-folder-browser");
          browser?.scrollIntoView({ block: "nearest" });
          browser?.querySelector<HTMLElement>("button")?.focus();
        });
      }}
    >
      Choose a project folder…
    </button>
  );
  return (
    <main class="start-page">
      <header class="start-header">
        <h1>Sync</h1>
        <p class="secondary">
          Your projects. Extensions installed in a project run its background work, on a clock and
          when agents call them.
        </p>
      </header>
      <OpenFolderForm onOpened={reloadProjects} browsing={browsing} onBrowse={setBrowsing} />
      {projectsError.value && <p class="error" role="alert">{projectsError.value}</p>}
      {known && (
        <>
          <ProjectList
            title="Scheduled"
            about="The clock runs these projects' extensions, whether or not a window is open."
            empty="No project is on the clock. Open a project and install an extension with a schedule in it; the project joins the clock."
            emptyAction={known.recent.length > 0 ? chooseFolder : undefined}
            projects={known.scheduled.map((entry) => ({
              path: entry.path,
              gone: entry.gone,
              when: entry.addedAt,
              whenWords: "on the clock since",
            }))}
          />
          <ProjectList
            title="Recent"
            about="Projects opened lately, last opened first."
            empty="No project opened yet. Choose a project folder to open it: its window lists what is installed in it."
            emptyAction={chooseFolder}
            projects={known.recent.map((entry) => ({
              path: entry.path,
              gone: entry.gone,
              when: entry.openedAt,
              whenWords: "opened",
              extensions: entry.extensionIds.length,
            }))}
          />
        </>
      )}
      <AgentsSection />
    </main>
  );
}
