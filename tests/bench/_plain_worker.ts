/**
 * The unsafe baseline: a worker with no permissions that evaluates a service
 * module as plain JavaScript, without QuickJS, and calls one handler. Each
 * call imports the module afresh (a new URL), as each Sync call evaluates it
 * afresh, and answers with the handler's value as JSON.
 *
 * @module
 */

/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />

interface PlainCall {
  n: number;
  source: string;
  handler: string;
  payload: unknown;
  occasion: unknown;
}

self.onmessage = async (event: MessageEvent<PlainCall>) => {
  const { n, source, handler, payload, occasion } = event.data;
  try {
    // The trailing comment makes each call's URL, and so its module, new.
    const url = `data:text/javascript,${encodeURIComponent(`${source}\n// call ${n}\n`)}`;
    const module = await import(url);
    const handlers = await module.default();
    const value = await handlers[handler](payload, occasion);
    self.postMessage({ n, json: JSON.stringify(value) });
  } catch (error) {
    self.postMessage({ n, error: String(error) });
  }
};
