// src/index.tsx
var KEEP_CHARS = 2e5;
function activate(ctx) {
  const heading = element("h1", {}, "Follow a file");
  const intro = element("p", {
    class: "secondary"
  }, "Its last 100 lines, then each new line as it is written. A path is taken from the project folder; ~/ is your home.");
  const field = element("input", {
    class: "input",
    id: "path",
    name: "path",
    placeholder: "log/development.log",
    autocomplete: "off",
    spellcheck: "false"
  });
  const label = element("label", {
    for: "path"
  }, "File to follow");
  const follow = element("button", {
    class: "button primary",
    type: "button"
  }, "Follow");
  const stop = element("button", {
    class: "button",
    type: "button"
  }, "Stop");
  stop.disabled = true;
  const toolbar = element("div", {
    class: "screen-toolbar"
  }, element("span", {
    class: "field"
  }, label, field), follow, stop);
  const status = element("p", {
    class: "tertiary",
    role: "status"
  });
  const output = element("pre", {
    class: "mono",
    role: "log",
    "aria-label": "The file's lines",
    tabindex: "0"
  });
  document.body.append(heading, intro, toolbar, status, output);
  let running = null;
  const start = async () => {
    const path = field.value.trim();
    if (path === "") {
      status.className = "error";
      status.textContent = "Give the path of a file to follow.";
      return;
    }
    await running?.kill().catch(() => {
    });
    output.textContent = "";
    status.className = "tertiary";
    status.textContent = `Starting tail for ${path}\u2026`;
    try {
      const started = await ctx.host.spawn("tail", {
        ...whereAndWhat(path),
        onStdout: (text) => append(output, text),
        onStderr: (text) => append(output, text)
      });
      running = started;
      stop.disabled = false;
      status.textContent = `Following ${path} (pid ${started.pid}).`;
      const { code, signal } = await started.exited;
      if (running !== started) return;
      running = null;
      stop.disabled = true;
      status.textContent = signal ? `Stopped following ${path}.` : `tail ended with code ${code ?? "unknown"}.`;
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
function whereAndWhat(path) {
  return path.startsWith("~/") ? {
    args: [
      path.slice(2)
    ],
    cwd: "~"
  } : {
    args: [
      path
    ]
  };
}
function append(output, text) {
  const atEnd = output.scrollTop + output.clientHeight >= output.scrollHeight - 4;
  const all = (output.textContent ?? "") + text;
  output.textContent = all.length > KEEP_CHARS ? all.slice(all.length - KEEP_CHARS) : all;
  if (atEnd) output.scrollTop = output.scrollHeight;
}
function element(tag, attributes, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    made.setAttribute(name, value);
  }
  made.append(...children);
  return made;
}
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}
export {
  activate
};
