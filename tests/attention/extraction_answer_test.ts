import assert from "node:assert/strict";
import { segmentSource } from "../../runtime/attention/evidence.ts";
import {
  acknowledgedInputs,
  type BatchInput,
  checkExtraction,
  EXTRACTION_SCHEMA,
  repairMessage,
} from "../../runtime/attention/extraction_answer.ts";

const INVOICE = "The invoice No. 31 is due on Friday 13 March 2026. Please pay it by then.";
const DINNER = "Dinner at Rosa's on 2026-03-20 at 19:30, with Ana and Ben.";
const NEWS = "This week's newsletter: ten tips for spring gardening.";

const INPUTS: BatchInput[] = [
  ["mail.thread/invoice", INVOICE],
  ["mail.thread/dinner", DINNER],
  ["mail.thread/news", NEWS],
].map(([key, text], i) => ({ key, revision: i + 1, segments: segmentSource(key, [text]) }));

const PAY = {
  kind: "obligation",
  title: "Pay invoice No. 31",
  reason: "It is due Friday; a late fee follows.",
  due: "2026-03-13",
  evidence: [{ input: 1, segment: 1, quote: "is due on  Friday 13 March 2026" }],
};

Deno.test("`checkExtraction()` checks each finding on its own", async (t) => {
  await t.step("a grounded finding passes, its quote restored to the exact original", () => {
    const checked = checkExtraction({ findings: [PAY] }, INPUTS);
    assert.equal(checked.rejected.length, 0);
    assert.deepEqual(checked.verified, [{
      index: 1,
      kind: "obligation",
      title: "Pay invoice No. 31",
      reason: "It is due Friday; a late fee follows.",
      due: "2026-03-13",
      evidence: [{
        source: "mail.thread/invoice",
        segment: 1,
        text: "is due on Friday 13 March 2026",
      }],
      inputs: ["mail.thread/invoice"],
    }]);
  });

  await t.step("a rejected finding does not take the others with it", () => {
    const checked = checkExtraction({
      findings: [
        { ...PAY, evidence: [{ input: 1, segment: 1, quote: "the bill must be paid" }] },
        {
          kind: "event",
          title: "Dinner at Rosa's",
          reason: "With Ana and Ben.",
          start: "2026-03-20T19:30:00+01:00",
          evidence: [{ input: 2, segment: 1 }],
        },
      ],
    }, INPUTS);
    assert.deepEqual(checked.verified.map((c) => c.index), [2]);
    assert.equal(checked.verified[0].evidence[0].text, DINNER, "a segment cited whole");
    assert.equal(checked.rejected.length, 1);
    assert.equal(checked.rejected[0].index, 1);
    assert.deepEqual(checked.rejected[0].inputs, [1]);
    assert.match(
      checked.rejected[0].reason,
      /evidence 1 \(input 1\): the quote is not in segment 1/,
    );
  });

  await t.step("each rule names what is wrong", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...PAY, kind: "task" }, /"kind" is one of obligation, event, info/],
      [{ ...PAY, title: "  " }, /"title" is required/],
      [{ ...PAY, title: "x".repeat(201) }, /"title" is 201 characters; at most 200/],
      [{ ...PAY, reason: "r".repeat(601) }, /"reason" is 601 characters; at most 600/],
      [{ ...PAY, kind: "event", due: undefined }, /an event needs "start"/],
      [{ ...PAY, kind: "event", start: "next Friday" }, /"start" is a date/],
      [{ ...PAY, due: "2026-13-45" }, /"due" is a date/],
      [{ ...PAY, evidence: [] }, /"evidence" cites at least one segment/],
      [{ ...PAY, evidence: [{ input: 4, segment: 1 }] }, /cites input 4, which was not given/],
      [{ ...PAY, evidence: [{ input: 1, segment: 2 }] }, /has no segment 2/],
    ];
    for (const [finding, message] of cases) {
      const checked = checkExtraction({ findings: [finding] }, INPUTS);
      assert.equal(checked.verified.length, 0, JSON.stringify(finding));
      assert.match(checked.rejected[0].reason, message);
    }
  });

  await t.step("empty optional fields are left out; required ones stay required", () => {
    const checked = checkExtraction({
      findings: [{ ...PAY, due: "", start: null, end: "" }, { ...PAY, reason: "" }],
    }, INPUTS);
    assert.equal(checked.verified.length, 1);
    assert.equal("due" in checked.verified[0], false);
    assert.match(checked.rejected[0].reason, /"reason" is required/);
  });

  await t.step("an answer that is no findings list is malformed as a whole", () => {
    for (const answer of [null, {}, { findings: "none" }, []]) {
      const checked = checkExtraction(answer, INPUTS);
      assert.equal(checked.malformed, 'the answer has no "findings" list');
    }
  });

  await t.step("the schema asks for inputs and segments by number", () => {
    const properties = (EXTRACTION_SCHEMA.properties as Record<string, { items: unknown }>)
      .findings.items as { required: string[] };
    assert.deepEqual(properties.required, ["kind", "title", "reason", "evidence"]);
  });
});

Deno.test("`acknowledgedInputs()` withholds only what rejected findings cite", async (t) => {
  await t.step("no-finding inputs are acknowledged beside verified ones", () => {
    const checked = checkExtraction({ findings: [PAY] }, INPUTS);
    assert.deepEqual(acknowledgedInputs(INPUTS, checked), {
      acknowledged: ["mail.thread/invoice", "mail.thread/dinner", "mail.thread/news"],
      withheld: [],
    });
  });

  await t.step("an input a rejected finding cites waits; the rest go on", () => {
    const checked = checkExtraction({
      findings: [PAY, { ...PAY, evidence: [{ input: 2, segment: 1, quote: "lunch" }] }],
    }, INPUTS);
    assert.deepEqual(acknowledgedInputs(INPUTS, checked), {
      acknowledged: ["mail.thread/invoice", "mail.thread/news"],
      withheld: ["mail.thread/dinner"],
    });
  });

  await t.step("every finding rejected: the uncited inputs are acknowledged", () => {
    const checked = checkExtraction({
      findings: [{ ...PAY, evidence: [{ input: 1, segment: 1, quote: "rewritten" }] }],
    }, INPUTS);
    assert.equal(checked.verified.length, 0);
    assert.deepEqual(acknowledgedInputs(INPUTS, checked).acknowledged, [
      "mail.thread/dinner",
      "mail.thread/news",
    ]);
  });

  await t.step("a malformed answer acknowledges nothing", () => {
    const checked = checkExtraction({ nothing: true }, INPUTS);
    assert.deepEqual(acknowledgedInputs(INPUTS, checked).acknowledged, []);
  });
});

Deno.test("`repairMessage()` names each rejected finding by index, quoting no source", () => {
  const checked = checkExtraction({
    findings: [PAY, { ...PAY, evidence: [{ input: 2, segment: 1, quote: "lunch at noon" }] }],
  }, INPUTS);
  const message = repairMessage(checked);
  assert.match(message, /- Finding 2 \(input 2\): evidence 1 \(input 2\): the quote is not in/);
  assert.doesNotMatch(message, /Finding 1\b/);
  assert.ok(!message.includes(DINNER) && !message.includes("Rosa"), "no source text");
  assert.match(message, /holding only these findings, corrected/);
});
