import { route } from "./state/route.ts";
import { StartPage } from "./start/start_page.tsx";
import { ProjectWindow } from "./window/project_window.tsx";
import { ConnectionBanner } from "./notices/connection_banner.tsx";

/**
 * The app: the start page, or a project's window, as the address says, and
 * above either the word that Sync does not answer.
 */
export function App() {
  const current = route.value;
  return (
    <>
      <ConnectionBanner />
      {current.page === "project"
        // Keyed by project: another project's window starts from nothing.
        ? <ProjectWindow key={current.project} route={current} />
        : <StartPage />}
    </>
  );
}
