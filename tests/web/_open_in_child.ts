// Run as a child process whose --allow-write leaves out the folder it is
// given: asks the app to open that folder as a project and prints the answer.
import { createApp } from "../../runtime/web/app.ts";
import { testHost } from "../internal/packages.ts";

const [folder, token] = Deno.args;
const env = await testHost();
try {
  const app = createApp(env.host, { token, port: 4321 });
  const response = await app.request("http://127.0.0.1:4321/api/projects/open", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ path: folder }),
  });
  console.log(JSON.stringify({ status: response.status, body: await response.json() }));
} finally {
  await env.close();
}
