/**
 * Answers every message with the message itself: the smallest worker round
 * trip, against which the handler benchmarks are compared.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

self.onmessage = (event: MessageEvent) => {
  self.postMessage(event.data);
};
