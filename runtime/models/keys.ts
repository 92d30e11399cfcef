/**
 * Every Deno KV key of the models, in the installation's KV: a definition by
 * its name, and its key apart, so that listing the definitions never reads a
 * key.
 *
 * @module
 */

const MODEL = "model";
const MODEL_KEY = "model_key";

/**
 * Key of a model's definition.
 *
 * @param name The model's name, such as `ollama`.
 */
export function modelDefinitionKey(name: string): Deno.KvKey {
  return [MODEL, name];
}

/** Prefix of every model definition. */
export function modelDefinitionsPrefix(): Deno.KvKey {
  return [MODEL];
}

/**
 * Key of a model's API key, kept apart from its definition.
 *
 * @param name The model's name.
 */
export function modelKeyKey(name: string): Deno.KvKey {
  return [MODEL_KEY, name];
}
