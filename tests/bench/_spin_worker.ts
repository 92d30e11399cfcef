/**
 * Keeps its thread busy for the milliseconds it is sent, then answers: how
 * much CPU a thread of this process gets now is read around it.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

self.onmessage = (event: MessageEvent<number>) => {
  const until = performance.now() + event.data;
  let turns = 0;
  while (performance.now() < until) turns++;
  self.postMessage(turns);
};
