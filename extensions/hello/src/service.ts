// The Hello extension's service module. `deno task build extensions/hello` compiles it into
// service/index.js, leaving "@sync/extension-api/service" for the host to serve.
import { console, type Handlers, memory } from "@sync/extension-api/service";

/** What `hello.greet` accepts. Callers may send anything, so `name` is checked before use. */
interface GreetPayload {
  name?: unknown;
}

export default function register(): Handlers {
  return {
    "hello.greet": async (payload: GreetPayload | null, occasion) => {
      const name = typeof payload?.name === "string" ? payload.name : "world";
      const { records } = await memory.list({ kind: "hello.greeting", limit: 500 });
      const key = `hello.greeting/${records.length + 1}`;
      await memory.write({ key, title: `Hello, ${name}!`, fields: { name } });
      console.log(`greeted ${name} (${occasion.kind})`);
      return { key, greeting: `Hello, ${name}!` };
    },
    "hello.count": async () => {
      const { records } = await memory.list({ kind: "hello.greeting", limit: 500 });
      return { count: records.length };
    },
  };
}
