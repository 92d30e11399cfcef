import { route } from "./state/route.ts";
import { StartPage } from "./start/start_page.tsx";
import { ProjectWindow } from "./window/project_window.tsx";

/** The app: the start page, or a project's window, as the address says. */
export function App() {
  const current = route.value;
  if (current.page === "project") {
    // Keyed by project: another project's window starts from nothing.
    return <ProjectWindow key={current.project} route={current} />;
  }
  return <StartPage />;
}
