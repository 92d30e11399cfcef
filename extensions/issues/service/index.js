// src/service.ts
import { console, memory, net } from "@sync/extension-api/service";
var TRACKER_URL = "https://tracker.example.com/api/issues";
function register() {
  return {
    "issues.poll": async (_payload, occasion) => {
      const response = await net.fetch({
        url: TRACKER_URL,
        headers: {
          accept: "application/json"
        }
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
            updatedAt: issue.updatedAt
          },
          content: issue.body
        });
        written++;
      }
      await memory.write({
        key: "issues.poll/last",
        title: `Read ${issues.length} issues, wrote ${written}`,
        fields: {
          polledAt: (/* @__PURE__ */ new Date()).toISOString(),
          fetched: issues.length,
          written
        }
      });
      console.log(`${occasion.kind}: read ${issues.length} issues, wrote ${written}`);
      return {
        fetched: issues.length,
        written,
        unchanged: issues.length - written
      };
    }
  };
}
async function knownIssues() {
  const known = /* @__PURE__ */ new Map();
  let cursor;
  do {
    const page = await memory.list({
      kind: "issues.issue",
      limit: 500,
      ...cursor ? {
        cursor
      } : {}
    });
    for (const record of page.records) known.set(record.key, record);
    cursor = page.cursor;
  } while (cursor);
  return known;
}
function parseIssues(body) {
  let value;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error("the tracker did not answer JSON; the issues are unchanged");
  }
  if (!Array.isArray(value)) throw new Error("the tracker did not answer a list of issues");
  return value.map((item, i) => {
    const issue = item;
    if (typeof issue?.number !== "number" || typeof issue.title !== "string" || issue.state !== "open" && issue.state !== "closed" || typeof issue.updatedAt !== "string") {
      throw new Error(`the tracker's issue [${i}] lacks a number, title, state or updatedAt`);
    }
    return {
      number: issue.number,
      title: issue.title,
      state: issue.state,
      body: typeof issue.body === "string" ? issue.body : "",
      url: typeof issue.url === "string" ? issue.url : "",
      updatedAt: issue.updatedAt
    };
  });
}
export {
  register as default
};
