import assert from "node:assert/strict";
import { InvalidInputError, NotFoundError } from "../../runtime/errors.ts";
import {
  listModels,
  removeModel,
  resolveModel,
  saveModel,
} from "../../runtime/models/model_definitions.ts";

Deno.test("model definitions keep a key apart and never list it", async (t) => {
  using kv = await Deno.openKv(":memory:");

  await t.step("the presets are Ollama and llama.cpp on loopback, with no key", async () => {
    const models = await listModels(kv);
    assert.deepEqual(models.map((m) => [m.name, m.origin, m.hasKey]), [
      ["llama-cpp", "preset", false],
      ["ollama", "preset", false],
    ]);
    const ollama = await resolveModel(kv, "ollama");
    assert.equal(ollama.baseUrl, "http://127.0.0.1:11434/v1");
    assert.equal(ollama.key, null);
  });

  await t.step("a model with a key: listed with hasKey, the key itself only resolved", async () => {
    const listed = await saveModel(kv, {
      name: "hosted",
      baseUrl: "https://api.example.com/v1/",
      model: "small-1",
      key: "sk-secret-123",
    });
    assert.deepEqual(listed, {
      name: "hosted",
      baseUrl: "https://api.example.com/v1",
      model: "small-1",
      output: "json_schema",
      origin: "added",
      hasKey: true,
      about: "small-1 at https://api.example.com/v1",
    });
    assert.ok(!JSON.stringify(await listModels(kv)).includes("sk-secret-123"));
    assert.equal((await resolveModel(kv, "hosted")).key, "sk-secret-123");
  });

  await t.step("saving again without a key keeps it; an empty key removes it", async () => {
    await saveModel(kv, { name: "hosted", baseUrl: "https://api.example.com/v1", model: "big-2" });
    const kept = await resolveModel(kv, "hosted");
    assert.equal(kept.model, "big-2");
    assert.equal(kept.key, "sk-secret-123");
    await saveModel(kv, {
      name: "hosted",
      baseUrl: "https://api.example.com/v1",
      model: "big-2",
      key: "",
    });
    assert.equal((await resolveModel(kv, "hosted")).key, null);
  });

  await t.step(
    "a preset's name makes a model in its place; removing it brings the preset back",
    async () => {
      await saveModel(kv, {
        name: "ollama",
        baseUrl: "http://localhost:11434/v1",
        model: "qwen2.5:7b",
        output: "json_object",
      });
      const replaced = (await listModels(kv)).find((m) => m.name === "ollama")!;
      assert.equal(replaced.origin, "added");
      assert.equal(replaced.model, "qwen2.5:7b");
      await removeModel(kv, "ollama");
      assert.equal((await resolveModel(kv, "ollama")).model, "llama3.1:8b");
      await assert.rejects(
        () => removeModel(kv, "ollama"),
        (e: Error) =>
          e instanceof NotFoundError && /is a preset: it cannot be removed/.test(e.message),
      );
      await assert.rejects(
        () => resolveModel(kv, "nowhere"),
        (e: Error) =>
          e instanceof NotFoundError &&
          /no model named nowhere \(there are: hosted, llama-cpp, ollama\)/.test(e.message),
      );
    },
  );

  await t.step("bad input names the field and what it must be", async () => {
    const cases: [Parameters<typeof saveModel>[1], RegExp][] = [
      [{ name: "Big Model", baseUrl: "https://x.example/v1", model: "m" }, /lowercase letters/],
      [
        { name: "plain", baseUrl: "http://models.example.com/v1", model: "m" },
        /must be https, or http on this machine/,
      ],
      [{ name: "plain", baseUrl: "not a url", model: "m" }, /"baseUrl" is not a URL/],
      [{ name: "plain", baseUrl: "https://u:p@x.example/v1", model: "m" }, /no user, password/],
      [
        { name: "plain", baseUrl: "https://x.example/v1", model: " " },
        /"model" is the model's name/,
      ],
      [
        { name: "plain", baseUrl: "https://x.example/v1", model: "m", output: "xml" as never },
        /"output" is "json_schema" or "json_object"/,
      ],
      [
        { name: "plain", baseUrl: "https://x.example/v1", model: "m", key: "a\nb" },
        /no control characters/,
      ],
    ];
    for (const [input, message] of cases) {
      await assert.rejects(
        () => saveModel(kv, input),
        (e: Error) => e instanceof InvalidInputError && message.test(e.message),
        JSON.stringify(input),
      );
    }
    assert.equal((await listModels(kv)).some((m) => m.name === "plain"), false, "nothing saved");
  });
});
