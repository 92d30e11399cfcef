import assert from "node:assert/strict";
import { describeGiven } from "../../runtime/internal/describe_given.ts";

Deno.test("`describeGiven()` names in words what was given, an empty string included", () => {
  assert.equal(describeGiven(""), "an empty string");
  assert.equal(describeGiven(undefined), "undefined");
  assert.equal(describeGiven(null), "null");
  assert.equal(describeGiven(3), "number 3");
  assert.equal(describeGiven([]), "an array");
  assert.equal(describeGiven({}), "a value of type object");
  assert.equal(describeGiven("x y"), '"x y"');
});
