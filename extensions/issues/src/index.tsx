// The Issues extension's screen: the project's issues.issue records, read again every few
// seconds and after each check, and a button that runs issues.poll now. It draws with the app's
// look: the classes and CSS variables of the style sheet Sync puts into every screen's document.
// `deno task build extensions/issues` compiles it to ui/index.js.
import type { RecordSummary, ScreenContext } from "@sync/extension-api/ui";

/** How often the list is read again, in milliseconds. */
const READ_EVERY_MS = 5_000;

export async function activate(ctx: ScreenContext): Promise<void> {
  const heading = element("h1", {}, "Issues in this project");
  const intro = element(
    "p",
    { class: "secondary" },
    "One record per issue of the tracker, kept up to date every 15 minutes.",
  );
  const button = element("button", { class: "button primary", type: "button" }, "Check now");
  const status = element("p", { class: "tertiary", role: "status" });
  const toolbar = element("div", { class: "screen-toolbar" }, button, status);
  const count = element("p", { class: "tertiary" });
  const list = element("ul", { class: "screen-list", "aria-label": "Issues" });
  document.body.append(heading, intro, toolbar, count, list);

  const read = async () => {
    try {
      show(await allIssues(ctx), list, count);
    } catch (error) {
      count.textContent = `The issues could not be read: ${messageOf(error)}`;
    }
  };

  button.addEventListener("click", async () => {
    button.disabled = true;
    status.className = "tertiary";
    status.textContent = "Checking the tracker…";
    try {
      const answer = await ctx.handlers.call("issues.poll") as {
        fetched?: number;
        written?: number;
      };
      status.textContent = `Checked the tracker: ${answer.fetched ?? 0} issues read, ` +
        `${answer.written ?? 0} written.`;
    } catch (error) {
      status.className = "error";
      status.textContent = `The tracker could not be checked: ${messageOf(error)}`;
    } finally {
      button.disabled = false;
    }
    await read();
  });

  await read();
  setInterval(read, READ_EVERY_MS);
}

/** Every issues.issue record, all pages. */
async function allIssues(ctx: ScreenContext): Promise<RecordSummary[]> {
  const records: RecordSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.memory.list({
      kind: "issues.issue",
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    records.push(...page.records);
    cursor = page.cursor;
  } while (cursor);
  return records;
}

/** Puts the issues into the list; text only, never markup. */
function show(issues: RecordSummary[], list: HTMLElement, count: HTMLElement): void {
  count.textContent = issues.length === 0
    ? "No issues yet: check the tracker, or wait for the next check."
    : `${issues.length} ${issues.length === 1 ? "issue" : "issues"}`;
  list.replaceChildren(
    ...issues.map((issue) => {
      const number = element("span", { class: "tertiary mono" }, `#${issue.fields.number ?? ""}`);
      const title = element("span", { class: "primary" }, issue.title);
      const state = element("span", { class: "tertiary" }, String(issue.fields.state ?? ""));
      return element("li", {}, number, title, state);
    }),
  );
}

/** An element with attributes and text or element children. */
function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string>,
  ...children: (string | Node)[]
): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  made.append(...children);
  return made;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
