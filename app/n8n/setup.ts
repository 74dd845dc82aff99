/**
 * The lab's n8n set-up, idempotent: the owner (once), then a public-API key with the scopes the lab's
 * tools need: the one the lab already has when n8n lets it do all of that, else a new one made by the
 * owner's login.
 */
import { type ClientOptions, EditorSession, type Owner, PublicApi, setupOwner } from './client.js';

/**
 * What the lab's tools do with the key: the stage checker reads executions and workflows, reset stops
 * runs, `solution` creates, updates, publishes and unpublishes the reference workflows.
 */
export const LAB_KEY_SCOPES = [
  'workflow:read',
  'workflow:list',
  'workflow:create',
  'workflow:update',
  'workflow:delete',
  'workflow:activate',
  'workflow:deactivate',
  'execution:read',
  'execution:list',
  'execution:stop',
] as const;

export interface SetupResult {
  owner: 'created' | 'exists';
  /** The key to keep: `kept` when the given one works, else the new raw key. */
  key: { kept: true } | { kept: false; raw: string };
}

/** An id no workflow or execution has: the probes below change nothing. */
const NO_SUCH = 'soarLabScopeProbe';

/**
 * One request per scope of LAB_KEY_SCOPES that changes nothing (an unknown id, an invalid body): n8n
 * 2.41.1 checks the key's scopes first and answers 403 for a missing one, 401 for an unknown key.
 */
const SCOPE_PROBES: readonly [string, string, unknown?][] = [
  ['GET', '/workflows?limit=1'],
  ['GET', `/workflows/${NO_SUCH}`],
  ['POST', '/workflows', {}],
  ['PUT', `/workflows/${NO_SUCH}`, {}],
  ['DELETE', `/workflows/${NO_SUCH}`],
  ['POST', `/workflows/${NO_SUCH}/publish`, {}],
  ['POST', `/workflows/${NO_SUCH}/unpublish`],
  ['GET', '/executions?limit=1'],
  ['GET', '/executions/0'],
  ['POST', '/executions/0/stop'],
];

/** Whether n8n lets the key do everything the lab's tools do. */
async function keyWorks(options: ClientOptions, apiKey: string): Promise<boolean> {
  const api = new PublicApi(options, apiKey);
  for (const [method, path, body] of SCOPE_PROBES) {
    const status = await api.status(method, path, body);
    if (status === 401 || status === 403) return false;
  }
  return true;
}

export async function setupLab(options: ClientOptions, owner: Owner, apiKey?: string): Promise<SetupResult> {
  const made = await setupOwner(options, owner);
  if (apiKey && (await keyWorks(options, apiKey))) return { owner: made, key: { kept: true } };
  const session = await EditorSession.login(options, owner.email, owner.password);
  const raw = await session.createApiKey(`soar-lab ${new Date().toISOString()}`, LAB_KEY_SCOPES);
  return { owner: made, key: { kept: false, raw } };
}
