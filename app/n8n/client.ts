/**
 * The project's one client of n8n (2.41.1): its public API with an API key (`X-N8N-API-KEY`, under
 * /api/v1) and the REST API the editor uses with a login cookie (under /rest). Every answer is parsed
 * with zod; a refusal throws N8nError with n8n's status and message. What was found by probing the
 * pinned n8n is in docs/n8n.md ("The n8n client").
 */
import { z } from 'zod';

export class N8nError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    /** n8n's own message, when it gave one. */
    readonly n8nMessage: string | null = null,
    /** n8n's hint (for a webhook conflict: JSON naming the workflow that holds the path). */
    readonly hint: string | null = null,
  ) {
    super(message);
  }
}

const ErrorBodySchema = z.object({ message: z.string().optional(), hint: z.string().optional() });

/** A node as n8n stores it; only what the lab reads is typed, the rest is kept. */
export const WorkflowNodeSchema = z
  .object({ name: z.string(), type: z.string(), parameters: z.record(z.string(), z.unknown()).optional() })
  .passthrough();
export type WorkflowNode = z.infer<typeof WorkflowNodeSchema>;

export const WorkflowSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    active: z.boolean(),
    versionId: z.string().nullish(),
    activeVersionId: z.string().nullish(),
    isArchived: z.boolean().optional(),
    nodes: z.array(WorkflowNodeSchema),
    connections: z.record(z.string(), z.unknown()),
    /** The published version (n8n 2.x versions workflows: the draft's nodes may differ). */
    activeVersion: z
      .object({ nodes: z.array(WorkflowNodeSchema) })
      .passthrough()
      .nullish(),
  })
  .passthrough();
export type Workflow = z.infer<typeof WorkflowSchema>;

/** What a client sends to create or update a workflow (read-only fields such as id and active left out). */
export interface WorkflowBody {
  name: string;
  nodes: unknown[];
  connections: Record<string, unknown>;
  settings: Record<string, unknown>;
  /** The editor's pinned data: a node's name to the items it shows instead of running. */
  pinData?: Record<string, unknown[]>;
}

export interface ClientOptions {
  /** n8n as this process reaches it, e.g. http://n8n:5678. */
  url: string;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

async function call(
  options: ClientOptions,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ response: Response; json: unknown }> {
  const { url, timeoutMs = 15_000, fetchImpl = fetch } = options;
  let response: Response;
  try {
    response = await fetchImpl(`${url.replace(/\/+$/, '')}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new N8nError(`n8n unreachable at ${url} (${whyUnanswered(err)})`, null);
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!response.ok) {
    const parsed = ErrorBodySchema.safeParse(json);
    const message = parsed.success ? (parsed.data.message ?? null) : null;
    const hint = parsed.success ? (parsed.data.hint ?? null) : null;
    throw new N8nError(
      `n8n answered ${response.status} to ${method} ${path.split('?')[0]}${message ? `: ${message}` : ''}`,
      response.status,
      message,
      hint,
    );
  }
  return { response, json };
}

/**
 * Why fetch got no answer. Its own message is "fetch failed"; the reason is its cause (a refused
 * connection, or N8N_ALLOWED_SUBNET's refusal of an address: ./subnet-guard.ts).
 */
function whyUnanswered(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
}

function parse<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new N8nError(`n8n's answer to ${what} is not what 2.41.1 gives`, null);
  return parsed.data;
}

const PageSchema = z.object({ data: z.array(WorkflowSchema), nextCursor: z.string().nullish() });
const StoppedSchema = z.object({ stopped: z.number() });
const RecentSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.union([z.string(), z.number()]) })),
});
const ExecutionsSchema = z.object({ data: z.array(z.object({ id: z.string() }).passthrough()) });

/** n8n's public API (/api/v1) with an API key. */
export class PublicApi {
  private readonly headers: Record<string, string>;
  constructor(
    private readonly options: ClientOptions,
    apiKey: string,
  ) {
    this.headers = { 'x-n8n-api-key': apiKey };
  }

  private async json(method: string, path: string, body?: unknown): Promise<unknown> {
    return (await call(this.options, method, `/api/v1${path}`, this.headers, body)).json;
  }

  /** Every workflow (all pages); `active: true` for the published ones only. */
  async listWorkflows(filter: { active?: boolean } = {}): Promise<Workflow[]> {
    const all: Workflow[] = [];
    let cursor: string | null | undefined;
    do {
      const query = new URLSearchParams({ limit: '100', excludePinnedData: 'true' });
      if (filter.active !== undefined) query.set('active', String(filter.active));
      if (cursor) query.set('cursor', cursor);
      const page = parse(PageSchema, await this.json('GET', `/workflows?${query}`), 'GET /workflows');
      all.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  /** n8n's status for a request (never throws on a status): for probing what the key may do. */
  async status(method: string, path: string, body?: unknown): Promise<number> {
    try {
      await this.json(method, path, body);
      return 200;
    } catch (err) {
      if (err instanceof N8nError && err.status !== null) return err.status;
      throw err;
    }
  }

  /** One page of one workflow: the cheapest call that needs workflow:list. */
  async getWorkflowsPage(): Promise<void> {
    parse(PageSchema, await this.json('GET', '/workflows?limit=1&excludePinnedData=true'), 'GET /workflows');
  }

  async getWorkflow(id: string): Promise<Workflow> {
    return parse(
      WorkflowSchema,
      await this.json('GET', `/workflows/${encodeURIComponent(id)}`),
      'GET /workflows/{id}',
    );
  }

  async createWorkflow(body: WorkflowBody): Promise<Workflow> {
    return parse(WorkflowSchema, await this.json('POST', '/workflows', body), 'POST /workflows');
  }

  /** A published workflow is re-published with the new version (n8n's default, publishIfActive). */
  async updateWorkflow(id: string, body: WorkflowBody): Promise<Workflow> {
    return parse(
      WorkflowSchema,
      await this.json('PUT', `/workflows/${encodeURIComponent(id)}`, body),
      'PUT /workflows/{id}',
    );
  }

  /** n8n 2.x "publish" (1.x "activate"): the latest version goes live. */
  async publish(id: string): Promise<Workflow> {
    return parse(
      WorkflowSchema,
      await this.json('POST', `/workflows/${encodeURIComponent(id)}/publish`, {}),
      'publish',
    );
  }

  async unpublish(id: string): Promise<Workflow> {
    return parse(
      WorkflowSchema,
      await this.json('POST', `/workflows/${encodeURIComponent(id)}/unpublish`),
      'unpublish',
    );
  }

  /** Up to `limit` executions with this status (n8n's filter: new, running, waiting, error, success...). */
  async listExecutions(status: string, limit = 1): Promise<{ id: string }[]> {
    const query = new URLSearchParams({ limit: String(limit), status });
    return parse(ExecutionsSchema, await this.json('GET', `/executions?${query}`), 'GET /executions').data;
  }

  /**
   * Executions started after a moment, newest first, with their data (and the workflow they ran); a running
   * one only in a list asked with status=running (n8n leaves running executions out of any other list).
   */
  async executionsStartedAfter(query: {
    workflowId: string | undefined;
    startedAfter: string;
    running: boolean;
    limit: number;
  }): Promise<unknown[]> {
    const params = new URLSearchParams({
      includeData: 'true',
      startedAfter: query.startedAfter,
      limit: String(query.limit),
    });
    if (query.workflowId !== undefined) params.set('workflowId', query.workflowId);
    if (query.running) params.set('status', 'running');
    return parse(RecentSchema, await this.json('GET', `/executions?${params}`), 'GET /executions').data;
  }

  /** One execution without its node data: its status, cheaply. */
  async executionSummary(id: string): Promise<unknown> {
    return this.json('GET', `/executions/${encodeURIComponent(id)}`);
  }

  /** Stops a workflow's executions that are queued, run or wait, started after a moment (all when none). */
  async stopExecutionsSince(query: {
    workflowId: string | undefined;
    startedAfter: string;
  }): Promise<number> {
    const body = {
      status: ['queued', 'running', 'waiting'],
      workflowId: query.workflowId ?? 'all',
      startedAfter: query.startedAfter,
    };
    return parse(StoppedSchema, await this.json('POST', '/executions/stop', body), 'stop').stopped;
  }

  /** Stops every execution with one of these statuses; returns how many n8n stopped. */
  async stopExecutions(statuses: readonly string[]): Promise<number> {
    return parse(StoppedSchema, await this.json('POST', '/executions/stop', { status: statuses }), 'stop')
      .stopped;
  }
}

const ApiKeySchema = z.object({ data: z.object({ rawApiKey: z.string().min(1) }) });
const RestWorkflowSchema = z.object({ data: WorkflowSchema });
const RestListSchema = z.object({
  data: z.array(z.object({ id: z.string(), name: z.string() }).passthrough()),
});

export interface Owner {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

/**
 * n8n's first user, set up once through the editor's own endpoint. n8n answers 400 "Instance owner
 * already setup" to every later call: `exists`.
 */
export async function setupOwner(options: ClientOptions, owner: Owner): Promise<'created' | 'exists'> {
  try {
    await call(options, 'POST', '/rest/owner/setup', {}, owner);
    return 'created';
  } catch (err) {
    if (err instanceof N8nError && err.status === 400 && /already setup/i.test(err.n8nMessage ?? ''))
      return 'exists';
    throw err;
  }
}

/** The editor's REST API (/rest) as a logged-in user: the session cookie of `POST /rest/login`. */
export class EditorSession {
  private constructor(
    private readonly options: ClientOptions,
    private readonly cookie: string,
  ) {}

  static async login(options: ClientOptions, email: string, password: string): Promise<EditorSession> {
    const { response } = await call(
      options,
      'POST',
      '/rest/login',
      {},
      { emailOrLdapLoginId: email, password },
    );
    const cookie = response.headers
      .getSetCookie()
      .map((c) => c.split(';')[0] ?? '')
      .filter((c) => c.startsWith('n8n-auth='))
      .join('; ');
    if (cookie === '') throw new N8nError('n8n logged in but set no n8n-auth cookie', response.status);
    return new EditorSession(options, cookie);
  }

  private async json(method: string, path: string, body?: unknown): Promise<unknown> {
    return (await call(this.options, method, `/rest${path}`, { cookie: this.cookie }, body)).json;
  }

  /** A public-API key of this user with these scopes, never expiring; returns the raw key (shown once). */
  async createApiKey(label: string, scopes: readonly string[]): Promise<string> {
    const made = await this.json('POST', '/api-keys', { label, scopes, expiresAt: null });
    return parse(ApiKeySchema, made, 'POST /rest/api-keys').data.rawApiKey;
  }

  /** The workflows this user sees (id and name). */
  async listWorkflows(): Promise<{ id: string; name: string }[]> {
    return parse(RestListSchema, await this.json('GET', '/workflows'), 'GET /rest/workflows').data;
  }

  async getWorkflow(id: string): Promise<Workflow> {
    return parse(
      RestWorkflowSchema,
      await this.json('GET', `/workflows/${encodeURIComponent(id)}`),
      'GET /rest/workflows/{id}',
    ).data;
  }

  /** The editor's Save of a new workflow. */
  async createWorkflow(body: WorkflowBody): Promise<Workflow> {
    return parse(RestWorkflowSchema, await this.json('POST', '/workflows', body), 'POST /rest/workflows')
      .data;
  }

  /** The editor's Save: a new version when nodes or connections changed (versionId changes then). */
  async updateWorkflow(id: string, body: WorkflowBody): Promise<Workflow> {
    const path = `/workflows/${encodeURIComponent(id)}`;
    return parse(RestWorkflowSchema, await this.json('PATCH', path, body), 'PATCH /rest/workflows/{id}').data;
  }

  /** The editor's Publish: puts this version live (n8n 2.x names the endpoint `activate`). */
  async publish(id: string, versionId: string): Promise<Workflow> {
    const path = `/workflows/${encodeURIComponent(id)}/activate`;
    return parse(
      RestWorkflowSchema,
      await this.json('POST', path, { versionId }),
      'POST /rest/workflows/{id}/activate',
    ).data;
  }

  /** The editor's Unpublish. */
  async unpublish(id: string): Promise<Workflow> {
    const path = `/workflows/${encodeURIComponent(id)}/deactivate`;
    return parse(
      RestWorkflowSchema,
      await this.json('POST', path, {}),
      'POST /rest/workflows/{id}/deactivate',
    ).data;
  }
}
