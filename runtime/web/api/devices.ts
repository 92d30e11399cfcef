/**
 * The devices routes: `GET /api/devices?project=<absolute folder>` lists the
 * devices of the project's installed packages; `POST /api/devices/:id/<action>`
 * with `{ "project": "<absolute folder>", … }` changes one, through the task
 * runner, so a decision calls off a run it makes obsolete:
 * - `connect` `{ kind: "folder", folder }` or `{ kind: "remote", origin, credential }`;
 * - `disconnect`, `reset`, `pause`, `resume`, `review` (no more fields);
 * - `run` `{ task? }` (`sync` unless named): answers once the attempt ended;
 * - `consent` `{ endpoint }` to allow, `{ endpoint: null }` to take it back.
 *
 * No answer holds the credential; errors map to statuses in
 * `runtime/error_status.ts`.
 *
 * @module
 */
import { Hono } from "hono";
import type { AccountInput, TaskRunner } from "../../applets/mod.ts";
import { InvalidInputError } from "../../errors.ts";
import { jsonObjectBody } from "../json_object_body.ts";
import { projectFolder } from "../project_folder.ts";
import type {
  ConnectResponse,
  ConsentResponse,
  DeviceResponse,
  DevicesResponse,
  ResetResponse,
  RunResponse,
} from "./devices_types.ts";

const TAKES = '{ "project": "<absolute folder>" }';
const CONNECT_TAKES =
  '{ "project": "<absolute folder>", "kind": "folder", "folder": "<absolute folder>" } ' +
  'or { "project": …, "kind": "remote", "origin": "https://…", "credential": "…" }';

/**
 * The devices routes, to mount at `/api/devices`.
 *
 * @param runner The task runner the changes go through (the serve's, or one not started).
 * @returns A Hono app for `app.route()`. Marked internal because its type is
 *   Hono's, which Sync's documented surface does not name.
 * @internal
 */
export function devicesRoute(runner: TaskRunner): Hono {
  const routes = new Hono();
  routes.get("/", async (c) => {
    const project = await projectFolder(c.req.query("project"));
    return c.json({ project, devices: await runner.list(project) } satisfies DevicesResponse);
  });
  const answer = async (project: string, id: string): Promise<DeviceResponse> => ({
    project,
    device: await runner.view(project, id),
  });
  routes.post("/:id/connect", async (c) => {
    const body = await jsonObjectBody(c, CONNECT_TAKES);
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    const input = accountInput(body);
    const account = await runner.connect(project, id, input);
    return c.json({ ...await answer(project, id), account } satisfies ConnectResponse);
  });
  routes.post("/:id/reset", async (c) => {
    const body = await jsonObjectBody(c, TAKES);
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    const reset = await runner.reset(project, id);
    return c.json({ ...await answer(project, id), reset } satisfies ResetResponse);
  });
  for (const action of ["disconnect", "pause", "resume", "review"] as const) {
    routes.post(`/:id/${action}`, async (c) => {
      const body = await jsonObjectBody(c, TAKES);
      const project = await projectFolder(body.project);
      const id = c.req.param("id");
      await runner[action](project, id);
      return c.json(await answer(project, id) satisfies DeviceResponse);
    });
  }
  routes.post("/:id/run", async (c) => {
    const body = await jsonObjectBody(c, '{ "project": "<absolute folder>", "task"?: "sync" }');
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    const task = body.task ?? "sync";
    if (typeof task !== "string") {
      throw new InvalidInputError(`"task" must be a task's name such as "sync"`);
    }
    const attempt = await runner.runTask(project, id, task, { trigger: "person" });
    return c.json({ ...await answer(project, id), attempt } satisfies RunResponse);
  });
  routes.post("/:id/consent", async (c) => {
    const body = await jsonObjectBody(
      c,
      '{ "project": "<absolute folder>", "endpoint": "<where the content goes>" | null }',
    );
    const project = await projectFolder(body.project);
    const id = c.req.param("id");
    if (!("endpoint" in body)) {
      throw new InvalidInputError(
        `"endpoint" is required: the endpoint the content goes to, or null to take the consent back`,
      );
    }
    const endpoint = body.endpoint;
    if (endpoint !== null && typeof endpoint !== "string") {
      throw new InvalidInputError(`"endpoint" must be a string, or null to take the consent back`);
    }
    const consent = endpoint === null
      ? (await runner.revokeConsent(project, id), null)
      : await runner.grantConsent(project, id, endpoint);
    return c.json({ ...await answer(project, id), consent } satisfies ConsentResponse);
  });
  return routes;
}

/** The account a connect request gives, by its `kind`. */
function accountInput(body: Record<string, unknown>): AccountInput {
  if (body.kind === "folder") {
    if (typeof body.folder !== "string") {
      throw new InvalidInputError(`"folder" must be the folder's absolute path`);
    }
    return { kind: "folder", folder: body.folder };
  }
  if (body.kind === "remote") {
    if (typeof body.origin !== "string" || typeof body.credential !== "string") {
      throw new InvalidInputError(
        `a remote account takes "origin" (such as https://mail.example) and "credential", both strings`,
      );
    }
    return { kind: "remote", origin: body.origin, credential: body.credential };
  }
  throw new InvalidInputError(
    `"kind" must be "folder" or "remote", got ${JSON.stringify(body.kind ?? null)}`,
  );
}
