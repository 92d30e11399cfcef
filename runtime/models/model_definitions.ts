/**
 * The models Sync's batch stages call: named definitions of an
 * OpenAI-compatible chat-completions endpoint (what Ollama, llama.cpp's
 * server, vLLM, LM Studio and the hosted APIs speak) — a base URL, a model's
 * name, how it gives structured output, and an optional key kept in the
 * installation and never shown again. Kept over the presets Sync knows
 * (Ollama and llama.cpp on loopback); a definition of a preset's name replaces
 * it, and removing that brings the preset back.
 *
 * A model is not an agent: it is asked for one JSON completion with no tools,
 * and the runtime runs no loop of its own around it.
 *
 * @module
 */
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { modelDefinitionKey, modelDefinitionsPrefix, modelKeyKey } from "./keys.ts";

/**
 * How the endpoint is asked for JSON: `json_schema` (structured output held to
 * a schema, where the endpoint offers it) or `json_object` (plain JSON mode;
 * the schema goes in the instructions and the answer is checked after).
 */
export type ModelOutput = "json_schema" | "json_object";

/** A named model: where it answers, which model, and how it gives JSON. */
export interface ModelDefinition {
  /** Its name, such as `ollama`; the person assigns it to a stage by this name. */
  name: string;
  /** The API's base, such as `http://127.0.0.1:11434/v1`; requests go to `<base>/chat/completions`. */
  baseUrl: string;
  /** The model's name at the endpoint, such as `llama3.1:8b`. */
  model: string;
  /** How it is asked for JSON. */
  output: ModelOutput;
}

/** A definition as listed: where it comes from, and whether it has a key (never the key). */
export interface ListedModel extends ModelDefinition {
  /** `preset`: one Sync knows; `added`: a person added or replaced it. */
  origin: "preset" | "added";
  /** A key is kept for it. */
  hasKey: boolean;
  /** One line on what it is and what it needs. */
  about: string;
}

/** A definition with its key, for the one that calls it. */
export interface ResolvedModel extends ModelDefinition {
  /** Its key; null when it has none. */
  key: string | null;
}

/** What {@linkcode saveModel} takes. */
export interface ModelInput {
  /** Its name. */
  name: string;
  /** The API's base URL. */
  baseUrl: string;
  /** The model's name at the endpoint. */
  model: string;
  /** How it is asked for JSON; `json_schema` when absent. */
  output?: ModelOutput;
  /** A key to keep; an empty string removes the kept one; absent keeps it as it is. */
  key?: string;
}

interface Preset {
  baseUrl: string;
  model: string;
  output: ModelOutput;
  about: string;
}

/**
 * The presets: local servers on loopback, which need no key. The model's name
 * is the one their guides pull first; a person's definition of the same name
 * chooses another.
 */
const PRESETS: Readonly<Record<string, Preset>> = {
  ollama: {
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "llama3.1:8b",
    output: "json_schema",
    about: "Ollama on this machine (ollama serve; ollama pull llama3.1:8b); no key.",
  },
  "llama-cpp": {
    baseUrl: "http://127.0.0.1:8080/v1",
    model: "default",
    output: "json_schema",
    about: "llama.cpp's server on this machine (llama-server -m <model.gguf>); no key.",
  },
};

const NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const MODEL_CHARS = 200;
const KEY_CHARS = 4096;

/**
 * Every model: the presets, each replaced by a person's definition of its
 * name, then the others, by name. Keys are not read.
 *
 * @param kv The installation's KV.
 */
export async function listModels(kv: Deno.Kv): Promise<ListedModel[]> {
  const added = new Map<string, ModelDefinition>();
  for await (const entry of kv.list<ModelDefinition>({ prefix: modelDefinitionsPrefix() })) {
    added.set(entry.value.name, entry.value);
  }
  const names = [...new Set([...Object.keys(PRESETS), ...added.keys()])].sort();
  const keys = await Promise.all(names.map(async (name) => await hasKey(kv, name)));
  return names.map((name, i) => {
    const own = added.get(name);
    const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
    const definition = own ?? { name, ...presetDefinition(preset!) };
    return {
      ...definition,
      origin: own ? "added" : "preset",
      hasKey: keys[i],
      about: own ? `${definition.model} at ${definition.baseUrl}` : preset!.about,
    };
  });
}

/**
 * The model named `name`, with its key, to call it.
 *
 * @param kv The installation's KV.
 * @param name Its name.
 * @throws {NotFoundError} naming the models there are, when there is none of that name.
 */
export async function resolveModel(kv: Deno.Kv, name: string): Promise<ResolvedModel> {
  const [own, key] = await kv.getMany<[ModelDefinition, string]>([
    modelDefinitionKey(name),
    modelKeyKey(name),
  ]);
  const preset = Object.hasOwn(PRESETS, name) ? PRESETS[name] : undefined;
  if (!own.value && !preset) {
    const names = (await listModels(kv)).map((model) => model.name).join(", ");
    throw new NotFoundError(`There is no model named ${name} (there are: ${names})`);
  }
  const definition = own.value ?? { name, ...presetDefinition(preset!) };
  return { ...definition, key: key.value ?? null };
}

/**
 * Adds a model, or changes one (a preset's name makes a definition in its
 * place). The key, when given, is kept apart and never shown again.
 *
 * @param kv The installation's KV.
 * @param input The definition, and the key to keep.
 * @returns The model as listed.
 * @throws {InvalidInputError} naming the field that is wrong, and how.
 */
export async function saveModel(kv: Deno.Kv, input: ModelInput): Promise<ListedModel> {
  const definition = checkedModel(input);
  const atomic = kv.atomic().set(modelDefinitionKey(definition.name), definition);
  if (input.key !== undefined) {
    const key = checkedKey(input.key);
    if (key === "") atomic.delete(modelKeyKey(definition.name));
    else atomic.set(modelKeyKey(definition.name), key);
  }
  await atomic.commit();
  return (await listModels(kv)).find((model) => model.name === definition.name)!;
}

/**
 * Removes a person's model and its key; a preset of that name comes back.
 *
 * @param kv The installation's KV.
 * @param name Its name.
 * @throws {NotFoundError} when no person's model has that name (a preset cannot be removed).
 */
export async function removeModel(kv: Deno.Kv, name: string): Promise<void> {
  const own = await kv.get(modelDefinitionKey(name));
  if (own.value === null) {
    throw new NotFoundError(
      Object.hasOwn(PRESETS, name)
        ? `${name} is a preset: it cannot be removed, only replaced by a model of its name`
        : `There is no model named ${name} to remove`,
    );
  }
  await kv.atomic().check(own).delete(modelDefinitionKey(name)).delete(modelKeyKey(name))
    .commit();
}

async function hasKey(kv: Deno.Kv, name: string): Promise<boolean> {
  return (await kv.get(modelKeyKey(name))).value !== null;
}

function presetDefinition(preset: Preset): Omit<ModelDefinition, "name"> {
  return { baseUrl: preset.baseUrl, model: preset.model, output: preset.output };
}

/** The definition in `input`, checked field by field. */
function checkedModel(input: ModelInput): ModelDefinition {
  const { name, model } = input;
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    throw new InvalidInputError(
      `A model's name is 1 to 64 lowercase letters, digits, dots, dashes and underscores, ` +
        `starting with a letter or digit; got ${JSON.stringify(name)}`,
    );
  }
  if (typeof model !== "string" || model.trim() === "" || model.length > MODEL_CHARS) {
    throw new InvalidInputError(
      `Model ${name}: "model" is the model's name at the endpoint, 1 to ${MODEL_CHARS} characters`,
    );
  }
  const output = input.output ?? "json_schema";
  if (output !== "json_schema" && output !== "json_object") {
    throw new InvalidInputError(
      `Model ${name}: "output" is "json_schema" or "json_object", got ${JSON.stringify(output)}`,
    );
  }
  return { name, baseUrl: checkedBaseUrl(name, input.baseUrl), model: model.trim(), output };
}

/**
 * The base URL, without a trailing slash: https anywhere, or http on this
 * machine only, so that neither content nor a key crosses a network in clear.
 */
function checkedBaseUrl(name: string, value: unknown): string {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new InvalidInputError(
      `Model ${name}: "baseUrl" is not a URL: ${JSON.stringify(value)} (such as ` +
        `http://127.0.0.1:11434/v1 or https://api.example.com/v1)`,
    );
  }
  const local = url.protocol === "http:" && LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !local) {
    throw new InvalidInputError(
      `Model ${name}: "baseUrl" must be https, or http on this machine (127.0.0.1, localhost, ` +
        `[::1]): what is sent to a model is private, and ${url.origin} would carry it in clear`,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new InvalidInputError(
      `Model ${name}: "baseUrl" holds no user, password, query or fragment; give a key apart`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

function checkedKey(key: unknown): string {
  if (typeof key !== "string" || key.length > KEY_CHARS || hasControl(key)) {
    throw new InvalidInputError(
      `A model's key is at most ${KEY_CHARS} characters with no control characters`,
    );
  }
  return key.trim();
}

function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
