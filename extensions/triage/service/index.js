// src/service.ts
import { console, memory, work } from "@sync/extension-api/service";
var MAX_ORDERS_PER_SWEEP = 5;
var MAX_BODY_CHARS = 15e3;
var AGENT = "demo";
function register() {
  return {
    "triage.sweep": async () => {
      const ordered = [];
      let cursor;
      do {
        const page = await memory.list({
          kind: "issues.issue",
          limit: 100,
          ...cursor ? {
            cursor
          } : {}
        });
        for (const issue of page.records) {
          if (ordered.length >= MAX_ORDERS_PER_SWEEP) break;
          if (issue.fields.state !== "open") continue;
          const number = issue.key.slice("issues.issue/".length);
          const mark = `triage.ordered/${number}`;
          if (await memory.record(mark)) continue;
          const whole = await memory.content(issue.key) ?? "";
          const body = whole.length <= MAX_BODY_CHARS ? whole : `${whole.slice(0, MAX_BODY_CHARS)}

(The issue goes on: ${whole.length - MAX_BODY_CHARS} more characters in ${issue.key}.)`;
          const { key } = await work.order({
            kind: "agent.session",
            agent: AGENT,
            title: `Triage issue ${number}: ${issue.title}`.slice(0, 200),
            prompt: {
              text: `Triage issue ${number}, "${issue.title}". Say whether it is a bug, a feature request or a question, how urgent it is, and which part of the code it concerns.

${body}`
            },
            onInterrupted: "continue",
            about: issue.key
          });
          await memory.write({
            key: mark,
            title: `Triage of issue ${number} ordered`,
            fields: {
              issue: issue.key,
              work: key
            },
            revision: 0
          });
          ordered.push({
            issue: issue.key,
            work: key
          });
        }
        cursor = ordered.length >= MAX_ORDERS_PER_SWEEP ? void 0 : page.cursor;
      } while (cursor);
      console.log(`ordered ${ordered.length} triage sessions`);
      return {
        ordered
      };
    }
  };
}
export {
  register as default
};
