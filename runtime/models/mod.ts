/**
 * Models: named OpenAI-compatible chat-completions endpoints, and one JSON
 * completion from them, for the batch stages that turn what applets read into
 * findings.
 *
 * @module
 */
export { completeJson } from "./complete_json.ts";
export type {
  CompleteJsonOptions,
  JsonAnswer,
  JsonRequest,
  ModelMessage,
} from "./complete_json.ts";
export { listModels, removeModel, resolveModel, saveModel } from "./model_definitions.ts";
export type {
  ListedModel,
  ModelDefinition,
  ModelInput,
  ModelOutput,
  ResolvedModel,
} from "./model_definitions.ts";
