/**
 * The `net` host function: `net.fetch`, performed by the host with the
 * call's timeout and size cap.
 *
 * @module
 */
import { declaredHosts } from "../../packages/mod.ts";
import type { HostFunction } from "../host_function.ts";
import { maxNetFetchAnswerBytes, netFetch } from "./net_fetch.ts";

/** The `net` host functions, by the name the extension API gives each. */
export const net: {
  /**
   * `net.fetch(url | { url, method?, headers?, body? })`. It declares no
   * permission of its own: which `net:<host>` it needs depends on the URL,
   * so {@linkcode netFetch} checks it per request, after the request's shape.
   */
  readonly fetch: HostFunction<unknown>;
} = {
  fetch: {
    name: "net.fetch",
    reach: "acts",
    permission: null,
    // netFetch checks the request's shape itself, in its own words.
    parse: (args) => args,
    // The body and headers are capped as they arrive; their JSON may be longer.
    maxAnswerBytes: (limits) =>
      maxNetFetchAnswerBytes(limits.maxFetchBytes, limits.maxFetchHeaderBytes),
    async run(request, { package: pkg, limits, fetch, resolve, signal }) {
      return await netFetch(request, {
        packageId: pkg.manifest.id,
        hosts: declaredHosts(pkg.manifest),
        timeoutMs: Math.min(limits.fetchTimeoutMs, limits.timeoutMs),
        maxBytes: limits.maxFetchBytes,
        maxHeaderBytes: limits.maxFetchHeaderBytes,
        fetch,
        resolve,
        signal,
      });
    },
  },
};
