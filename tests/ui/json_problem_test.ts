import assert from "node:assert/strict";
import { jsonProblem } from "../../ui/extensions/json_problem.ts";
import { fieldsLine, payloadMisfits, payloadTemplate } from "../../ui/extensions/payload_fit.ts";

Deno.test("`jsonProblem()` names the line and column of a payload's first mistake", async (t) => {
  await t.step("JSON is no problem, whatever its shape", () => {
    for (const text of ['{ "a": [1, -2.5e3, true, null, "x\\n\\u00e9"] }', "[]", '"text"', " 3 "]) {
      assert.equal(jsonProblem(text), null, text);
      JSON.parse(text);
    }
  });

  await t.step("a comma before a closing brace", () => {
    assert.deepEqual(jsonProblem('{\n  "name": "Ada",\n}'), {
      line: 3,
      column: 1,
      offset: 19,
      message: 'a property name in double quotes was expected, not "}"',
    });
  });

  await t.step("every other mistake is placed where JSON.parse refuses too", () => {
    const cases: [string, number, RegExp][] = [
      ['{"a": 1 "b": 2}', 8, /^a comma or a closing \} was expected, not "\\""$/],
      ["{'a': 1}", 1, /^a property name in double quotes/],
      ['{"a": }', 6, /^a value was expected .* not "}"$/],
      ['{"a": "open', 11, /^the text ends inside a string/],
      ['{"a": 1}x', 8, /^the JSON ends before "x"/],
      ["[1, 2", 5, /^a comma or a closing \] was expected, not the end of the text$/],
      ['"tab\there"', 4, /^a string cannot hold a line break or a control character/],
      ['"\\q"', 1, /is not an escape JSON knows$/],
      ["nul", 0, /^a value was expected/],
    ];
    for (const [text, offset, message] of cases) {
      const problem = jsonProblem(text);
      assert.equal(problem?.offset, offset, text);
      assert.match(problem?.message ?? "", message, text);
      assert.throws(() => JSON.parse(text), SyntaxError, text);
    }
  });
});

Deno.test("`payloadMisfits()` names each field that does not fit the declared input", () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, times: { type: "integer" } },
    required: ["name"],
    additionalProperties: false,
  };
  assert.equal(payloadTemplate(schema), '{\n  "name": ""\n}');
  assert.equal(fieldsLine(schema), "name (text, required) · times (a whole number)");
  assert.deepEqual(payloadMisfits({ name: "Ada", times: 2 }, schema), []);
  assert.deepEqual(payloadMisfits({ times: 1.5, extra: true }, schema), [
    "name: required, and missing",
    "times: expected a whole number, got the number 1.5",
    "extra: not a field this handler takes",
  ]);
  assert.deepEqual(payloadMisfits([1], schema), [
    "The payload is a list; this handler takes an object, in { }",
  ]);
});
