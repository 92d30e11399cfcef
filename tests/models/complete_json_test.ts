import assert from "node:assert/strict";
import {
  ModelAnswerError,
  ModelRefusedError,
  ModelUnavailableError,
} from "../../runtime/errors.ts";
import { completeJson } from "../../runtime/models/complete_json.ts";
import type { ResolvedModel } from "../../runtime/models/model_definitions.ts";
import { FixtureModelServer } from "../internal/fixture_model_server.ts";

const SCHEMA = {
  type: "object",
  properties: { findings: { type: "array" } },
  required: ["findings"],
};

const REQUEST = {
  messages: [
    { role: "system" as const, content: "Find what needs the person." },
    { role: "user" as const, content: "Segment 1: the invoice is due Friday." },
  ],
  schema: SCHEMA,
  schemaName: "findings",
};

Deno.test("`completeJson()` asks a real endpoint for one JSON completion", async (t) => {
  const server = FixtureModelServer.start();
  const model = (over: Partial<ResolvedModel> = {}): ResolvedModel => ({
    name: "fixture",
    baseUrl: server.baseUrl,
    model: "tiny",
    output: "json_schema",
    key: null,
    ...over,
  });
  try {
    await t.step(
      "a valid answer: its JSON, and a request held to the schema with no tools",
      async () => {
        server.script({
          answer: { findings: [{ title: "Pay the invoice" }] },
          usage: { prompt: 120, completion: 9 },
        });
        const answer = await completeJson(model({ key: "sk-1" }), REQUEST);
        assert.deepEqual(answer.value, { findings: [{ title: "Pay the invoice" }] });
        assert.deepEqual(answer.usage, { prompt: 120, completion: 9 });
        const seen = server.seen.at(-1)!;
        assert.equal(seen.line, "POST /v1/chat/completions");
        assert.equal(seen.headers.authorization, "Bearer sk-1");
        assert.equal(seen.body.model, "tiny");
        assert.deepEqual(seen.body.messages, REQUEST.messages);
        assert.deepEqual(seen.body.response_format, {
          type: "json_schema",
          json_schema: { name: "findings", schema: SCHEMA, strict: true },
        });
        assert.equal(seen.body.temperature, 0);
        assert.equal("tools" in seen.body, false);
      },
    );

    await t.step("plain JSON mode, no key, a fenced answer", async () => {
      server.script({ content: '```json\n{"findings": []}\n```' });
      const answer = await completeJson(model({ output: "json_object" }), REQUEST);
      assert.deepEqual(answer.value, { findings: [] });
      const seen = server.seen.at(-1)!;
      assert.deepEqual(seen.body.response_format, { type: "json_object" });
      assert.equal(seen.headers.authorization, undefined);
    });

    await t.step("text that is not JSON is an answer error that keeps what it said", async () => {
      server.script({ content: "Sure! Here are the findings: none." });
      await assert.rejects(
        () => completeJson(model(), REQUEST),
        (e: Error) =>
          e instanceof ModelAnswerError && /not JSON/.test(e.message) &&
          (e as ModelAnswerError).content === "Sure! Here are the findings: none.",
      );
    });

    await t.step("an answer cut off at its length is an answer error", async () => {
      server.script({ content: '{"findings": [', finish: "length" });
      await assert.rejects(
        () => completeJson(model(), REQUEST),
        (e: Error) => e instanceof ModelAnswerError && /cut off at its length/.test(e.message),
      );
    });

    await t.step("429 says when to ask again; 500 is tried again later", async () => {
      server.script({
        status: 429,
        body: JSON.stringify({ error: { message: "slow down" } }),
        headers: { "retry-after": "7" },
      });
      await assert.rejects(
        () => completeJson(model(), REQUEST),
        (e: Error) =>
          e instanceof ModelUnavailableError &&
          (e as ModelUnavailableError).retryAfterMs === 7000 &&
          /is busy \(429: slow down\); it is asked again in 7 s/.test(e.message),
      );
      server.script({ status: 500, body: "upstream crashed" });
      await assert.rejects(
        () => completeJson(model(), REQUEST),
        (e: Error) =>
          e instanceof ModelUnavailableError && /failed \(500: upstream crashed\)/.test(e.message),
      );
    });

    await t.step("a refused key or model is for a person to change", async () => {
      server.script({ status: 401, body: JSON.stringify({ error: { message: "bad key" } }) });
      await assert.rejects(
        () => completeJson(model({ key: "sk-wrong" }), REQUEST),
        (e: Error) =>
          e instanceof ModelRefusedError &&
          /refused its key \(401: bad key\); give the model a key/.test(e.message),
      );
      server.script({ status: 404, body: JSON.stringify({ error: "model 'tiny' not found" }) });
      await assert.rejects(
        () => completeJson(model(), REQUEST),
        (e: Error) => e instanceof ModelRefusedError && /check the model's name/.test(e.message),
      );
    });

    await t.step("a dropped connection and a silence are tried again later", async () => {
      server.script({ drop: true });
      await assert.rejects(() => completeJson(model(), REQUEST), ModelUnavailableError);
      server.script({ silent: true });
      await assert.rejects(
        () => completeJson(model(), REQUEST, { timeoutMs: 200 }),
        (e: Error) =>
          e instanceof ModelUnavailableError &&
          /did not answer within 200 ms/.test(e.message),
      );
    });

    await t.step("an answer past its bound is refused as it arrives", async () => {
      server.script({ content: JSON.stringify({ findings: ["x".repeat(5000)] }) });
      await assert.rejects(
        () => completeJson(model(), REQUEST, { maxAnswerBytes: 1000 }),
        (e: Error) => e instanceof ModelAnswerError && /more than 1000 bytes/.test(e.message),
      );
    });

    await t.step("nothing listening is said so", async () => {
      const gone = FixtureModelServer.start();
      const baseUrl = gone.baseUrl;
      await gone.close();
      await assert.rejects(
        () => completeJson(model({ baseUrl }), REQUEST),
        (e: Error) =>
          e instanceof ModelUnavailableError &&
          /could not be reached .*is it running\?/.test(e.message),
      );
    });

    await t.step("a run called off ends the request with its own reason", async () => {
      server.script({ silent: true });
      const controller = new AbortController();
      const before = server.seen.length;
      const asked = completeJson(model(), REQUEST, { signal: controller.signal });
      // Called off once the endpoint has the request and says nothing.
      while (server.seen.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(new Error("the run was called off"));
      await assert.rejects(() => asked, /the run was called off/);
    });
  } finally {
    await server.close();
  }
});
