import assert from "node:assert/strict";
import { netFetch, type NetFetchOptions } from "../../../runtime/host/functions/net_fetch.ts";
import { NetworkError, PermissionDeniedError } from "../../../runtime/errors.ts";
import { rejectsWith } from "../../internal/rejects_with.ts";

/** A resolver that answers from a table, as DNS would, without touching the machine. */
function resolver(table: Record<string, string[]>): (hostname: string) => Promise<string[]> {
  return (hostname) => {
    const found = table[hostname];
    return found
      ? Promise.resolve(found)
      : Promise.reject(new Error(`getaddrinfo ENOTFOUND ${hostname}`));
  };
}

Deno.test("`netFetch()` reaches a declared name only at addresses the package may reach", async (t) => {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(
      `${request.method} ${new URL(request.url).pathname} host=${request.headers.get("host")}`,
    );
    return new Response("inside");
  });
  const port = server.addr.port;
  const options: NetFetchOptions = {
    packageId: "web",
    hosts: [],
    timeoutMs: 5_000,
    maxBytes: 1024,
    maxHeaderBytes: 4096,
  };

  try {
    await t.step("a name resolving to the metadata address is refused, naming both", async () => {
      await rejectsWith(
        netFetch("http://metadata.test/latest/meta-data/", {
          ...options,
          hosts: ["metadata.test"],
          resolve: resolver({ "metadata.test": ["169.254.169.254"] }),
        }),
        PermissionDeniedError,
        "net.fetch() cannot fetch http://metadata.test/: metadata.test resolves to " +
          "169.254.169.254, the cloud metadata address; declare net:169.254.169.254 to allow it",
      );
    });

    await t.step(
      "a declared name resolving to loopback (localhost, resolved for real) sends nothing",
      async () => {
        seen.length = 0;
        await rejectsWith(
          netFetch(`http://localhost:${port}/`, { ...options, hosts: [`localhost:${port}`] }),
          PermissionDeniedError,
          new RegExp(
            `^net\\.fetch\\(\\) cannot fetch http://localhost:${port}/: localhost resolves to ` +
              `(127\\.0\\.0\\.1, a loopback address; declare net:127\\.0\\.0\\.1:${port} to allow it|` +
              `::1, a loopback address; a net: permission cannot name an IPv6 address; .+)$`,
          ),
        );
        assert.deepEqual(seen, []);
      },
    );

    await t.step("the address declared exactly, on its port, is reached", async () => {
      seen.length = 0;
      const answer = await netFetch(`http://127.0.0.1:${port}/here`, {
        ...options,
        hosts: [`127.0.0.1:${port}`],
      });
      assert.equal(answer.body, "inside");
      assert.deepEqual(seen, [`GET /here host=127.0.0.1:${port}`]);
    });

    await t.step(
      "a name whose address is declared too is reached at the address it was checked at",
      async () => {
        seen.length = 0;
        // inside.test resolves nowhere on this machine: only the checked
        // address, not a second look-up, can have carried the request.
        const answer = await netFetch({
          url: `http://inside.test:${port}/pinned`,
          headers: { host: "elsewhere.test" },
        }, {
          ...options,
          hosts: [`inside.test:${port}`, `127.0.0.1:${port}`],
          resolve: resolver({ "inside.test": ["127.0.0.1"] }),
        });
        assert.equal(answer.body, "inside");
        assert.deepEqual(seen, [`GET /pinned host=inside.test:${port}`]);
      },
    );

    await t.step("an address declared on another port does not allow this one", async () => {
      await rejectsWith(
        netFetch(`http://inside.test:${port}/`, {
          ...options,
          hosts: [`inside.test:${port}`, "127.0.0.1"],
          resolve: resolver({ "inside.test": ["127.0.0.1"] }),
        }),
        PermissionDeniedError,
        `net.fetch() cannot fetch http://inside.test:${port}/: inside.test resolves to ` +
          `127.0.0.1, a loopback address; declare net:127.0.0.1:${port} to allow it`,
      );
    });

    await t.step(
      "an unspecified address is refused though declared, and sends nothing",
      async () => {
        seen.length = 0;
        await rejectsWith(
          netFetch(`http://0.0.0.0:${port}/`, { ...options, hosts: [`0.0.0.0:${port}`] }),
          PermissionDeniedError,
          `net.fetch() cannot fetch http://0.0.0.0:${port}/: 0.0.0.0 is an unspecified address; ` +
            `as a destination it is this machine, which no net: permission names so: to reach a ` +
            `server on this machine, declare net:127.0.0.1:${port} and fetch that`,
        );
        // The URL's short forms of 0.0.0.0 are 0.0.0.0 too.
        await rejectsWith(
          netFetch(`http://0:${port}/`, { ...options, hosts: [`0.0.0.0:${port}`] }),
          PermissionDeniedError,
          /0\.0\.0\.0 is an unspecified address; /,
        );
        await rejectsWith(
          netFetch(`http://unspecified.test:${port}/`, {
            ...options,
            hosts: [`unspecified.test:${port}`, `0.0.0.0:${port}`],
            resolve: resolver({ "unspecified.test": ["0.0.0.0"] }),
          }),
          PermissionDeniedError,
          `net.fetch() cannot fetch http://unspecified.test:${port}/: unspecified.test resolves ` +
            `to 0.0.0.0, an unspecified address; as a destination it is this machine, which no ` +
            `net: permission names so: to reach a server on this machine, declare ` +
            `net:127.0.0.1:${port} and fetch that`,
        );
        assert.deepEqual(seen, []);
      },
    );

    await t.step("every address a name may not lead to is refused by what it is", async () => {
      const kinds: [string, string][] = [
        ["127.0.0.2", "a loopback address"],
        ["10.1.2.3", "a private address"],
        ["172.16.0.1", "a private address"],
        ["172.31.255.255", "a private address"],
        ["192.168.1.1", "a private address"],
        ["100.64.0.1", "a shared (carrier-grade NAT) address"],
        ["100.127.255.254", "a shared (carrier-grade NAT) address"],
        ["169.254.1.1", "a link-local address"],
        ["0.0.0.0", "an unspecified address"],
        ["::1", "a loopback address"],
        ["::", "an unspecified address"],
        ["fd12:3456::1", "a private address"],
        ["fc00::1", "a private address"],
        ["fe80::1%eth0", "a link-local address"],
        ["fd00:ec2::254", "the cloud metadata address"],
        ["::ffff:127.0.0.1", "a loopback address"],
        ["::ffff:a9fe:a9fe", "the cloud metadata address"],
        ["::ffff:192.168.0.1", "a private address"],
        ["64:ff9b::a00:1", "a private address"],
      ];
      for (const [address, kind] of kinds) {
        const refusal = await rejectsWith(
          netFetch("https://api.example.com/", {
            ...options,
            hosts: ["api.example.com"],
            resolve: resolver({ "api.example.com": ["203.0.113.7", address] }),
          }),
          PermissionDeniedError,
          /^net\.fetch\(\) cannot fetch https:\/\/api\.example\.com\/: api\.example\.com resolves to /,
        );
        assert.ok(
          refusal.message.includes(` resolves to ${address}, ${kind}; `),
          `${address}: ${refusal.message}`,
        );
      }
    });

    await t.step("addresses outside those ranges are not refused", async () => {
      for (const address of ["172.32.0.1", "100.128.0.1", "169.255.0.1", "203.0.113.7"]) {
        // The request is made: it fails where nothing answers, or is answered
        // where a network in between does, but it is never refused.
        const outcome = await netFetch("http://api.example.com/", {
          ...options,
          timeoutMs: 200,
          hosts: ["api.example.com"],
          resolve: resolver({ "api.example.com": [address] }),
        }).then(() => "answered", (error: unknown) => error);
        if (outcome !== "answered") {
          assert.ok(outcome instanceof NetworkError, `${address}: ${outcome}`);
          assert.match(outcome.message, /^could not reach api\.example\.com \(/);
        }
      }
    });

    await t.step("a name that does not resolve fails, saying so in words", async () => {
      await rejectsWith(
        netFetch("https://nowhere.test/", {
          ...options,
          hosts: ["nowhere.test"],
          resolve: resolver({}),
        }),
        NetworkError,
        "could not reach nowhere.test (no such host)",
      );
    });

    await t.step("a resolver that does not answer in time is given up on", async () => {
      await rejectsWith(
        netFetch("https://slow.test/", {
          ...options,
          timeoutMs: 100,
          hosts: ["slow.test"],
          resolve: () => new Promise(() => {}),
        }),
        NetworkError,
        "could not reach slow.test (no answer within 100 ms)",
      );
    });
  } finally {
    await server.shutdown();
  }
});
