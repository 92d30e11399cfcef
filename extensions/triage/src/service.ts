// The Triage extension's service module: once an hour it orders an agent session for each
// open issue the Issues extension wrote that nobody has triaged yet. It reads issues.issue,
// a kind Issues publishes, and writes only its own triage.ordered records.
import { console, type Handlers, memory, work } from "@sync/extension-api/service";

/** Sessions one sweep orders at most: each spends somebody's agent tokens. */
const MAX_ORDERS_PER_SWEEP = 5;

/**
 * The most of an issue's body a prompt carries: an order is at most 60 KiB, and
 * a character takes up to three bytes. A longer body is cut and the agent is
 * told where the rest is.
 */
const MAX_BODY_CHARS = 15_000;

/** The agent each session runs. */
const AGENT = "demo";

export default function register(): Handlers {
  return {
    "triage.sweep": async () => {
      const ordered: { issue: string; work: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await memory.list({
          kind: "issues.issue",
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        for (const issue of page.records) {
          if (ordered.length >= MAX_ORDERS_PER_SWEEP) break;
          if (issue.fields.state !== "open") continue;
          const number = issue.key.slice("issues.issue/".length);
          const mark = `triage.ordered/${number}`;
          if (await memory.record(mark)) continue;
          const whole = (await memory.content(issue.key)) ?? "";
          const body = whole.length <= MAX_BODY_CHARS
            ? whole
            : `${whole.slice(0, MAX_BODY_CHARS)}\n\n(The issue goes on: ${
              whole.length - MAX_BODY_CHARS
            } more characters in ${issue.key}.)`;
          const { key } = await work.order({
            kind: "agent.session",
            agent: AGENT,
            title: `Triage issue ${number}: ${issue.title}`.slice(0, 200),
            prompt: {
              text: `Triage issue ${number}, "${issue.title}". Say whether it is a bug, a ` +
                `feature request or a question, how urgent it is, and which part of the ` +
                `code it concerns.\n\n${body}`,
            },
            onInterrupted: "continue",
            about: issue.key,
          });
          await memory.write({
            key: mark,
            title: `Triage of issue ${number} ordered`,
            fields: { issue: issue.key, work: key },
            revision: 0,
          });
          ordered.push({ issue: issue.key, work: key });
        }
        cursor = ordered.length >= MAX_ORDERS_PER_SWEEP ? undefined : page.cursor;
      } while (cursor);
      console.log(`ordered ${ordered.length} triage sessions`);
      return { ordered };
    },
  };
}
