// The Issues extension's service module: a scheduled poll of the tracker that keeps one
// issues.issue record per issue. `deno task build extensions/issues` compiles it.
import {
  console,
  type Handlers,
  memory,
  net,
  type RecordSummary,
} from "@sync/extension-api/service";

/** The tracker's list of issues. Its host is declared in manifest.json as net:tracker.example.com. */
const TRACKER_URL = "https://tracker.example.com/api/issues";

/** One issue as the tracker answers it. */
interface TrackerIssue {
  number: number;
  title: string;
  state: "open" | "closed";
  body: string;
  url: string;
  updatedAt: string;
}

export default function register(): Handlers {
  return {
    "issues.poll": async (_payload, occasion) => {
      const response = await net.fetch({
        url: TRACKER_URL,
        headers: { accept: "application/json" },
      });
      if (response.status !== 200) {
        throw new Error(`the tracker answered ${response.status}; the issues are unchanged`);
      }
      const issues = parseIssues(response.body);
      const known = await knownIssues();
      let written = 0;
      for (const issue of issues) {
        const key = `issues.issue/${issue.number}`;
        if (known.get(key)?.fields.updatedAt === issue.updatedAt) continue;
        await memory.write({
          key,
          title: issue.title,
          fields: {
            number: issue.number,
            state: issue.state,
            url: issue.url,
            updatedAt: issue.updatedAt,
          },
          content: issue.body,
        });
        written++;
      }
      await memory.write({
        key: "issues.poll/last",
        title: `Read ${issues.length} issues, wrote ${written}`,
        fields: { polledAt: new Date().toISOString(), fetched: issues.length, written },
      });
      console.log(`${occasion.kind}: read ${issues.length} issues, wrote ${written}`);
      return { fetched: issues.length, written, unchanged: issues.length - written };
    },
  };
}

/** Every issues.issue record already in memory, by key (all pages). */
async function knownIssues(): Promise<Map<string, RecordSummary>> {
  const known = new Map<string, RecordSummary>();
  let cursor: string | undefined;
  do {
    // A property set to undefined does not cross as JSON, so `cursor` is left out until there is one.
    const page = await memory.list({
      kind: "issues.issue",
      limit: 500,
      ...(cursor ? { cursor } : {}),
    });
    for (const record of page.records) known.set(record.key, record);
    cursor = page.cursor;
  } while (cursor);
  return known;
}

/** The tracker's answer, checked: a refusal names what was wrong rather than writing half an issue. */
function parseIssues(body: string): TrackerIssue[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error("the tracker did not answer JSON; the issues are unchanged");
  }
  if (!Array.isArray(value)) throw new Error("the tracker did not answer a list of issues");
  return value.map((item: unknown, i): TrackerIssue => {
    const issue = item as Partial<TrackerIssue> | null;
    if (
      typeof issue?.number !== "number" || typeof issue.title !== "string" ||
      (issue.state !== "open" && issue.state !== "closed") || typeof issue.updatedAt !== "string"
    ) {
      throw new Error(`the tracker's issue [${i}] lacks a number, title, state or updatedAt`);
    }
    return {
      number: issue.number,
      title: issue.title,
      state: issue.state,
      body: typeof issue.body === "string" ? issue.body : "",
      url: typeof issue.url === "string" ? issue.url : "",
      updatedAt: issue.updatedAt,
    };
  });
}
