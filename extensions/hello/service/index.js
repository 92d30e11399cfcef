// src/service.ts
import { console, memory } from "@sync/extension-api/service";
function register() {
  return {
    "hello.greet": async (payload, occasion) => {
      const name = typeof payload?.name === "string" ? payload.name : "world";
      const { records } = await memory.list({
        kind: "hello.greeting",
        limit: 500
      });
      const key = `hello.greeting/${records.length + 1}`;
      await memory.write({
        key,
        title: `Hello, ${name}!`,
        fields: {
          name
        }
      });
      console.log(`greeted ${name} (${occasion.kind})`);
      return {
        key,
        greeting: `Hello, ${name}!`
      };
    },
    "hello.count": async () => {
      const { records } = await memory.list({
        kind: "hello.greeting",
        limit: 500
      });
      return {
        count: records.length
      };
    }
  };
}
export {
  register as default
};
