/**
 * What a person sees of the packages installed in a project: the lamp of
 * each (one rule), the Extensions list, an extension's page, and what
 * removing one keeps and takes.
 *
 * This file is the domain's public entry: other domains import from it, never
 * from the files behind it.
 *
 * @module
 */
export { lampOf, readLamp } from "./lamp.ts";
export type {
  Lamp,
  LampFacts,
  LampNotice,
  LampReason,
  LampState,
  ReadLampOptions,
} from "./lamp.ts";
export { FAILING_AFTER, failingHandlers } from "./failing_handlers.ts";
export type { FailingHandler, FailingHandlersOptions } from "./failing_handlers.ts";
export { listExtensions } from "./extension_summary.ts";
export type { ExtensionSummary, ListExtensionsOptions } from "./extension_summary.ts";
export { describeExtension } from "./extension_page.ts";
export type {
  DescribeExtensionOptions,
  ExtensionPage,
  HandlerLine,
  PermissionLine,
  PublishedType,
  ReceiptLine,
  ScheduleLine,
} from "./extension_page.ts";
export { removalOf } from "./removal.ts";
export { runNowRefusal } from "../packages/mod.ts";
export type { Removal, RemovalManifest, RemovalOptions } from "./removal.ts";
export { readScreenMemory, screenNetFetch, servingScreen } from "./screen.ts";
export type {
  ScreenMemoryOptions,
  ScreenMemoryRead,
  ScreenNetOptions,
  ScreenReadHost,
  ServingScreen,
} from "./screen.ts";
