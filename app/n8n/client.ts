/**
 * The project's one client of n8n (2.41.1): the REST API as the editor uses it (owner set-up, login with
 * the session cookie, API keys, workflows) and the public API (`X-N8N-API-KEY`: workflows, publishing).
 * Found by probing the pinned n8n: publishing is `POST /api/v1/workflows/<id>/activate` (public) or
 * `POST /rest/workflows/<id>/activate {versionId}` (the editor's); a webhook path another published
 * workflow holds answers 409 "There is a conflict with one of the webhooks".
 */
import { z } from 'zod';

export class N8nError extends Error {
  override name = 'N8nError';
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

/** A workflow as n8n's APIs take it: what an export carries besides its id, tags and state. */
export const WorkflowBodySchema = z.object({
  name: z.string().min(1),
  nodes: z.array(
    z.looseObject({ name: z.string(), type: z.string(), parameters: z.record(z.string(), z.unknown()) }),
  ),
  connections: z.record(z.string(), z.unknown()),
  settings: z.record(z.string(), z.unknown()).default({}),
});
export type WorkflowBody = z.infer<typeof WorkflowBodySchema>;

const WorkflowSchema = WorkflowBodySchema.extend({
  id: z.string(),
  active: z.boolean(),
  versionId: z.string().optional(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

/** The scopes the lab's tools need: read runs, stop them, and publish the reference solution. */
export const LAB_KEY_SCOPES = [
  'workflow:read',
  'workflow:list',
  'workflow:create',
  'workflow:update',
  'workflow:activate',
  'workflow:deactivate',
  'execution:read',
  'execution:list',
  'execution:stop',
] as const;

export interface Connection {
  /** n8n as this process reaches it, e.g. http://n8n:5678. */
  url: string;
  fetchImpl?: typeof fetch;
}

/** One request; answers the status and the parsed JSON body (null when there is none). */
async function request(
  conn: Connection,
  method: string,
  path: string,
  { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; json: unknown; cookies: string[] }> {
  const res = await (conn.fetchImpl ?? fetch)(`${conn.url.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json, cookies: res.headers.getSetCookie() };
}

function messageOf(json: unknown): string {
  const parsed = z.object({ message: z.string() }).safeParse(json);
  return parsed.success ? parsed.data.message : JSON.stringify(json).slice(0, 200);
}

/** Creates n8n's owner (the lab's login) unless one exists: 'created' or 'exists'. */
export async function setUpOwner(
  conn: Connection,
  owner: { email: string; password: string; firstName: string; lastName: string },
): Promise<'created' | 'exists'> {
  const res = await request(conn, 'POST', '/rest/owner/setup', { body: owner });
  if (res.status === 200) return 'created';
  if (res.status === 400) return 'exists';
  throw new N8nError(`owner set-up answered ${res.status}: ${messageOf(res.json)}`, res.status);
}

/** Logs in as the editor does; answers the session cookie for the REST API. */
export async function logIn(conn: Connection, email: string, password: string): Promise<string> {
  const res = await request(conn, 'POST', '/rest/login', { body: { emailOrLdapLoginId: email, password } });
  if (res.status !== 200)
    throw new N8nError(`login answered ${res.status}: ${messageOf(res.json)}`, res.status);
  return res.cookies.map((c) => c.split(';')[0]).join('; ');
}

export async function createApiKey(conn: Connection, cookie: string, label: string): Promise<string> {
  const res = await request(conn, 'POST', '/rest/api-keys', {
    body: { label, scopes: LAB_KEY_SCOPES, expiresAt: null },
    headers: { cookie },
  });
  const parsed = z.object({ data: z.object({ rawApiKey: z.string().min(1) }) }).safeParse(res.json);
  if (res.status !== 200 || !parsed.success)
    throw new N8nError(`making an API key answered ${res.status}: ${messageOf(res.json)}`, res.status);
  return parsed.data.data.rawApiKey;
}

/** The public API with a key. */
export interface PublicApi extends Connection {
  apiKey: string;
}

export async function apiKeyWorks(api: PublicApi): Promise<boolean> {
  const res = await request(api, 'GET', '/api/v1/workflows?limit=1', {
    headers: { 'x-n8n-api-key': api.apiKey },
  });
  return res.status === 200;
}

async function publicCall(api: PublicApi, method: string, path: string, body?: unknown) {
  const res = await request(api, method, `/api/v1${path}`, {
    headers: { 'x-n8n-api-key': api.apiKey },
    ...(body === undefined ? {} : { body }),
  });
  if (res.status >= 300)
    throw new N8nError(`${method} ${path} answered ${res.status}: ${messageOf(res.json)}`, res.status);
  return res.json;
}

/** Every workflow (the public API pages by cursor). */
export async function listWorkflows(api: PublicApi): Promise<Workflow[]> {
  const Page = z.object({ data: z.array(WorkflowSchema), nextCursor: z.string().nullish() });
  const out: Workflow[] = [];
  let cursor: string | null | undefined = null;
  do {
    const page = Page.parse(
      await publicCall(
        api,
        'GET',
        `/workflows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    );
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** Creates the workflow, or replaces the one of the same name; answers its id. */
export async function upsertWorkflow(
  api: PublicApi,
  body: WorkflowBody,
  existing: readonly Workflow[],
): Promise<string> {
  const { name, nodes, connections, settings } = body;
  const payload = { name, nodes, connections, settings };
  const same = existing.find((w) => w.name === name);
  const saved = WorkflowSchema.parse(
    same
      ? await publicCall(api, 'PUT', `/workflows/${same.id}`, payload)
      : await publicCall(api, 'POST', '/workflows', payload),
  );
  return saved.id;
}

export async function publishWorkflow(api: PublicApi, id: string): Promise<void> {
  await publicCall(api, 'POST', `/workflows/${id}/activate`);
}

/** "METHOD path" of every Webhook node of a workflow. */
export function webhookPathsOf(workflow: Pick<WorkflowBody, 'nodes'>): string[] {
  return workflow.nodes
    .filter((n) => n.type === 'n8n-nodes-base.webhook' && typeof n.parameters.path === 'string')
    .map(
      (n) =>
        `${typeof n.parameters.httpMethod === 'string' ? n.parameters.httpMethod : 'GET'} ${n.parameters.path}`,
    );
}

/** The editor's own calls (the REST API with the login's cookie), for the scripted trainee. */
export interface EditorSession extends Connection {
  cookie: string;
}

const SavedSchema = z.object({ data: WorkflowSchema.extend({ versionId: z.string() }) });

async function editorCall(session: EditorSession, method: string, path: string, body?: unknown) {
  const res = await request(session, method, `/rest${path}`, {
    headers: { cookie: session.cookie },
    ...(body === undefined ? {} : { body }),
  });
  if (res.status >= 300)
    throw new N8nError(`${method} /rest${path} answered ${res.status}: ${messageOf(res.json)}`, res.status);
  return res.json;
}

/** Saves a workflow as the editor's Save does (creates it, or updates the one with that id). */
export async function saveAsEditor(
  session: EditorSession,
  body: WorkflowBody,
  id?: string,
): Promise<Workflow & { versionId: string }> {
  if (id === undefined) return SavedSchema.parse(await editorCall(session, 'POST', '/workflows', body)).data;
  const current = SavedSchema.parse(await editorCall(session, 'GET', `/workflows/${id}`)).data;
  return SavedSchema.parse(
    await editorCall(session, 'PATCH', `/workflows/${id}`, { ...body, versionId: current.versionId }),
  ).data;
}

/** Publishes the saved version, as the editor's Publish does. */
export async function publishAsEditor(session: EditorSession, id: string, versionId: string): Promise<void> {
  await editorCall(session, 'POST', `/workflows/${id}/activate`, { versionId });
}

/** The editor's list of workflows (id and name). */
export async function listAsEditor(session: EditorSession): Promise<{ id: string; name: string }[]> {
  const Page = z.object({ data: z.array(z.looseObject({ id: z.string(), name: z.string() })) });
  return Page.parse(await editorCall(session, 'GET', '/workflows')).data;
}
