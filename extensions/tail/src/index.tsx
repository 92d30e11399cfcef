// The Tail extension's screen: follows a file of the project as it grows. It starts the one
// program its manifest declares, `tail -n 100 -F --`, with the file's path appended, and shows what
// it prints as it comes. The path is data to tail (after `--`), never an option or a command.
// `deno task build extensions/tail` compiles it to ui/index.js.
import type { ScreenContext, ScreenProcess } from "@sync/extension-api/ui";

/** The most characters kept on screen; older output scrolls away. */
const KEEP_CHARS = 200_000;

export function activate(ctx: ScreenContext): void {
  const heading = element("h1", {}, "Follow a file");
  const intro = element(
    "p",
    { class: "secondary" },
    "Its last 100 lines, then each new line as it is written. A path is taken from the project " +
      "folder; ~/ is your home.",
  );
  const field = element("input", {
    class: "input",
    id: "path",
    name: "path",
    placeholder: "log/development.log",
    autocomplete: "off",
    spellcheck: "false",
  });
  const label = element("label", { for: "path" }, "File to follow");
  const follow = element(
    "button",
    { class: "button primary", type: "button" },
    "Follow",
  );
  const stop = element("button", { class: "button", type: "button" }, "Stop");
  stop.disabled = true;
  // No <form>: a screen's frame is sandboxed without allow-forms, so a form is never submitted.
  const toolbar = element(
    "div",
    { class: "screen-toolbar" },
    element("span", { class: "field" }, label, field),
    follow,
    stop,
  );
  const status = element("p", { class: "tertiary", role: "status" });
  const output = element("pre", {
    class: "mono",
    role: "log",
    "aria-label": "The file's lines",
    tabindex: "0",
  });
  document.body.append(heading, intro, toolbar, status, output);

  let running: ScreenProcess | null = null;

  const start = async () => {
    const path = field.value.trim();
    if (path === "") {
      status.className = "error";
      status.textContent = "Give the path of a file to follow.";
      return;
    }
    await running?.kill().catch(() => {/* it had ended */});
    output.textContent = "";
    status.className = "tertiary";
    status.textContent = `Starting tail for ${path}…`;
    try {
      const started = await ctx.host.spawn("tail", {
        ...whereAndWhat(path),
        onStdout: (text) => append(output, text),
        onStderr: (text) => append(output, text),
      });
      running = started;
      stop.disabled = false;
      status.textContent = `Following ${path} (pid ${started.pid}).`;
      const { code, signal } = await started.exited;
      if (running !== started) return;
      running = null;
      stop.disabled = true;
      status.textContent = signal
        ? `Stopped following ${path}.`
        : `tail ended with code ${code ?? "unknown"}.`;
    } catch (error) {
      status.className = "error";
      status.textContent = `tail could not start: ${messageOf(error)}`;
    }
  };
  follow.addEventListener("click", start);
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter") void start();
  });

  stop.addEventListener("click", async () => {
    try {
      await running?.kill();
    } catch (error) {
      status.className = "error";
      status.textContent = `tail could not be stopped: ${messageOf(error)}`;
    }
  });
}

/**
 * Where tail starts and what it is given. tail gets no shell to expand `~/`,
 * so a path in the home folder is started there, with the rest of the path.
 */
function whereAndWhat(path: string): { args: string[]; cwd?: string } {
  return path.startsWith("~/") ? { args: [path.slice(2)], cwd: "~" } : { args: [path] };
}

/** Adds text at the end, keeping at most KEEP_CHARS, and follows the end when it was there. */
function append(output: HTMLElement, text: string): void {
  const atEnd = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
  const all = (output.textContent ?? "") + text;
  output.textContent = all.length > KEEP_CHARS ? all.slice(all.length - KEEP_CHARS) : all;
  if (atEnd) output.scrollTop = output.scrollHeight;
}

/** An element with attributes and text or element children. */
function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string>,
  ...children: (string | Node)[]
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
