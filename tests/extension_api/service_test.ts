import assert from "node:assert/strict";
import * as api from "../../runtime/extension_api/service.ts";
import { testHost } from "../internal/packages.ts";

Deno.test("`@sync/extension-api/service` exports the values the isolate serves", async (t) => {
  const env = await testHost();
  try {
    await env.install({
      id: "probe",
      // It touches work and net, so it declares what a package using them must.
      permissions: ["background", "work.agent", "net:example.com"],
      handlers: ["probe.exports"],
      service: `import * as api from "@sync/extension-api/service";
export default function register() {
  return {
    "probe.exports": () => ({
      names: Object.keys(api).sort(),
      areas: {
        memory: Object.keys(api.memory).sort(),
        work: Object.keys(api.work).sort(),
        net: Object.keys(api.net).sort(),
        console: Object.keys(api.console).sort(),
      },
      version: typeof api.API_VERSION === "string" ? api.API_VERSION : null,
      sameConsole: api.console === globalThis.console,
    }),
  };
}`,
    });
    const served = await env.call("probe", "probe.exports") as {
      names: string[];
      areas: Record<string, string[]>;
      version: string | null;
      sameConsole: boolean;
    };

    await t.step("the same value names, so an import that type-checks also links", () => {
      assert.deepEqual(served.names, Object.keys(api).sort());
    });

    await t.step("the same functions in each area", () => {
      assert.deepEqual(served.areas, {
        memory: Object.keys(api.memory).sort(),
        work: Object.keys(api.work).sort(),
        net: Object.keys(api.net).sort(),
        console: Object.keys(api.console).sort(),
      });
    });

    await t.step("the same API_VERSION", () => {
      assert.equal(served.version, api.API_VERSION);
      assert.match(api.API_VERSION, /^\d+\.\d+\.\d+$/);
    });

    await t.step("the exported console is the isolate's global console", () => {
      assert.equal(served.sameConsole, true);
    });
  } finally {
    await env.close();
  }
});

Deno.test("`memory.list()` outside the isolate rejects and says where it runs", async () => {
  await assert.rejects(
    () => api.memory.list({ kind: "hello.greeting" }),
    /memory\.list\(\) runs only inside Sync's isolate/,
  );
  await assert.rejects(() => api.work.order({} as api.WorkOrderInput), /work\.order\(\)/);
  await assert.rejects(() => api.net.fetch("https://example.com"), /net\.fetch\(\)/);
});

Deno.test("`@sync/extension-api/service` type-checks with the ECMAScript library alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sync-api-lib-" });
  try {
    const config = `${dir}/deno.json`;
    await Deno.writeTextFile(
      config,
      JSON.stringify({ compilerOptions: { lib: ["esnext"], strict: true } }),
    );
    const file = new URL("../../runtime/extension_api/service.ts", import.meta.url).pathname;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["check", "--quiet", "--config", config, file],
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
