import assert from "node:assert/strict";
import { basename, dirname } from "node:path";
import { McpEndpoint } from "../../runtime/mcp/mod.ts";
import { projectPath } from "../../runtime/projects/mod.ts";
import { needProject } from "../../runtime/cli/need.ts";
import { createApp } from "../../runtime/web/app.ts";
import { installPackage } from "../../runtime/lifecycle/mod.ts";
import { testHost } from "../internal/packages.ts";
import { performerOver } from "../internal/sessions.ts";
import { initializeRequest, mcpPostHeaders } from "../internal/mcp_initialize.ts";

const TOKEN = "t".repeat(48);
const ORIGIN = "http://127.0.0.1:4321";
const HEADERS = { cookie: `sync_token_4321=${TOKEN}`, origin: ORIGIN };

/** A route that takes a project: how to ask it, with `project` as the project path. */
interface ProjectRoute {
  route: string;
  /** The name the route takes the project under, when not `project`. */
  name?: string;
  request: (project: string) => [string, RequestInit?];
}

const q = encodeURIComponent;
const post = (path: string, body: Record<string, unknown>): [string, RequestInit] => [
  path,
  {
    method: "POST",
    headers: { ...HEADERS, "content-type": "application/json" },
    body: JSON.stringify(body),
  },
];

/** Every route that takes a project, query or body. */
const ROUTES: ProjectRoute[] = [
  { route: "GET /api/receipts", request: (p) => [`/api/receipts?project=${q(p)}`] },
  { route: "GET /api/extensions", request: (p) => [`/api/extensions?project=${q(p)}`] },
  { route: "GET /api/extensions/:id", request: (p) => [`/api/extensions/x?project=${q(p)}`] },
  {
    route: "POST /api/extensions/:id/switch",
    request: (p) => post("/api/extensions/x/switch", { project: p, state: "off" }),
  },
  {
    route: "POST /api/extensions/:id/remove",
    request: (p) => post("/api/extensions/x/remove", { project: p }),
  },
  {
    route: "POST /api/extensions/:id/approve",
    request: (p) => post("/api/extensions/x/approve", { project: p }),
  },
  {
    route: "POST /api/install/card",
    request: (p) => post("/api/install/card", { project: p, source: "/no/such/package" }),
  },
  {
    route: "POST /api/install",
    request: (p) => post("/api/install", { project: p, source: "/no/such/package" }),
  },
  { route: "GET /api/events", request: (p) => [`/api/events?project=${q(p)}`] },
  {
    route: "GET /api/processes",
    request: (p) => [`/api/processes?project=${q(p)}&id=x&screen=s`],
  },
  { route: "GET /api/chat", request: (p) => [`/api/chat?project=${q(p)}`] },
  {
    route: "GET /api/chat/sessions/:key",
    request: (p) => [`/api/chat/sessions/k?project=${q(p)}`],
  },
  {
    route: "POST /api/chat/sessions",
    request: (p) => post("/api/chat/sessions", { project: p, agent: "demo", text: "hi" }),
  },
  {
    route: "POST /api/chat/sessions/:key/prompt",
    request: (p) => post("/api/chat/sessions/k/prompt", { project: p, text: "hi" }),
  },
  ...["cancel", "continue", "keep"].map((verb) => ({
    route: `POST /api/chat/sessions/:key/${verb}`,
    request: (p: string) => post(`/api/chat/sessions/k/${verb}`, { project: p }),
  })),
  {
    route: "POST /api/chat/sessions/:key/permission",
    request: (p) =>
      post("/api/chat/sessions/k/permission", { project: p, requestId: "r", optionId: null }),
  },
  ...["call", "memory", "net"].map((verb) => ({
    route: `POST /api/screens/${verb}`,
    request: (p: string) => post(`/api/screens/${verb}`, { project: p, id: "x" }),
  })),
  { route: "GET /screens/:id", request: (p) => [`/screens/x?project=${q(p)}`] },
  {
    route: "POST /api/projects/open",
    name: "path",
    request: (p) => post("/api/projects/open", { path: p }),
  },
  {
    route: "POST /mcp",
    request: (p) => [`/mcp?project=${q(p)}`, {
      method: "POST",
      headers: { ...mcpPostHeaders(TOKEN), origin: ORIGIN },
      body: initializeRequest(),
    }],
  },
];

/** The refusal's words, whichever form the route answers in (JSON, JSON-RPC or a page). */
async function refusalOf(response: Response): Promise<string> {
  const type = response.headers.get("content-type") ?? "";
  if (type.includes("text/html")) {
    const page = await response.text();
    const text = /<p>([\s\S]*)<\/p>/.exec(page)?.[1] ?? page;
    return text.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">").replaceAll("&amp;", "&");
  }
  if (type.includes("application/json")) {
    const body = await response.json();
    return typeof body.error === "string" ? body.error : body.error?.message;
  }
  await response.body?.cancel();
  return `(a ${type || "bodiless"} answer)`;
}

Deno.test("`projectPath()` refuses a relative project the same way on every route", async (t) => {
  const env = await testHost();
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const app = createApp(env.host, { token: TOKEN, port: 4321, work: performerOver(env.host), mcp });
  // The relative path names the real project from the folder this process
  // runs in: resolved against it, a route would answer for that project.
  const cwd = Deno.cwd();
  Deno.chdir(dirname(env.project));
  const relative = basename(env.project);
  try {
    for (const { route, name = "project", request } of ROUTES) {
      await t.step(`${route} refuses a relative path`, async () => {
        const [path, init] = request(relative);
        const response = await app.request(`${ORIGIN}${path}`, {
          ...init,
          headers: { ...HEADERS, ...init?.headers },
        });
        const status = response.status;
        const message = await refusalOf(response);
        assert.equal(status, 400, `${route} answered ${status}: ${message}`);
        assert.equal(
          message,
          `${name}: ${
            JSON.stringify(relative)
          } is relative; give the project folder's absolute path`,
        );
      });
    }
    await t.step("the CLI's --project takes a relative path from the folder typed in", () => {
      assert.equal(needProject("site", "/home/ada"), "/home/ada/site");
      assert.throws(() => needProject(undefined, "/home/ada"), /--project <dir> is required/);
    });
    await t.step("a missing or non-string project is refused with what was expected", () => {
      assert.throws(() => projectPath(""), /^InvalidInputError: project: required/);
      assert.throws(() => projectPath(7), /project: expected the project folder's absolute path/);
    });
  } finally {
    Deno.chdir(cwd);
    await mcp.close();
    await env.close();
  }
});

Deno.test("`projectPath()` refuses the home folder and an over-long path the same way on every route", async (t) => {
  const env = await testHost();
  const mcp = new McpEndpoint(env.host, { token: TOKEN });
  const app = createApp(env.host, { token: TOKEN, port: 4321, work: performerOver(env.host), mcp });
  const ask = async (path: string, init?: RequestInit) => {
    const response = await app.request(`${ORIGIN}${path}`, {
      ...init,
      headers: { ...HEADERS, ...init?.headers },
    });
    return { status: response.status, message: await refusalOf(response) };
  };
  // The person's home folder is `HOME`, read wherever a project is resolved.
  const home = await Deno.makeTempDir({ prefix: "sync-person-home-" });
  const realHome = Deno.env.get("HOME");
  Deno.env.set("HOME", home);
  const long = `/${"a".repeat(4999)}`;
  try {
    for (const { route, name = "project", request } of ROUTES) {
      await t.step(`${route} refuses the home folder`, async () => {
        const { status, message } = await ask(...request(home));
        assert.equal(status, 400, `${route} answered ${status}: ${message}`);
        assert.equal(
          message,
          `Cannot open ${home} as a project: it is your home folder; open the project's own folder`,
        );
        assert.equal(await exists(`${home}/.sync`), false);
      });
      await t.step(`${route} refuses a path longer than the system opens`, async () => {
        const { status, message } = await ask(...request(long));
        assert.equal(status, 400, `${route} answered ${status}: ${message}`);
        assert.equal(
          message,
          `${name}: the path is 5000 bytes long, longer than any path the system opens (4095 ` +
            `bytes); a project's path may be at most 1024 bytes. Give the project folder's own, ` +
            `shorter path`,
        );
      });
    }
    await t.step(
      "`installPackage()`, as the CLI installs, refuses the home folder as the app does",
      async () => {
        await assert.rejects(
          installPackage(env.host, "/no/such/package", home),
          /Cannot open .* as a project: it is your home folder/,
        );
      },
    );
    await t.step("/mcp with an empty project says what the parser says", async () => {
      const { status, message } = await ask("/mcp?project=", {
        method: "POST",
        headers: { ...mcpPostHeaders(TOKEN), origin: ORIGIN },
        body: initializeRequest(),
      });
      assert.equal(status, 400);
      assert.equal(message, "project: required: the project folder's absolute path");
    });
  } finally {
    if (realHome === undefined) Deno.env.delete("HOME");
    else Deno.env.set("HOME", realHome);
    await Deno.remove(home, { recursive: true });
    await mcp.close();
    await env.close();
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
