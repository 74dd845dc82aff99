/**
 * The lab's n8n set-up, idempotent: the owner (once), then a public-API key with the scopes the lab's
 * tools need: the one the lab already has when it still works, else a new one made by the owner's login.
 */
import { type ClientOptions, EditorSession, N8nError, type Owner, PublicApi, setupOwner } from './client.js';

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

/** Whether n8n accepts the key for listing workflows and executions (its read scopes). */
async function keyWorks(options: ClientOptions, apiKey: string): Promise<boolean> {
  const api = new PublicApi(options, apiKey);
  try {
    await api.listExecutions('waiting', 1);
    await api.getWorkflowsPage();
    return true;
  } catch (err) {
    if (err instanceof N8nError && (err.status === 401 || err.status === 403)) return false;
    throw err;
  }
}

export async function setupLab(options: ClientOptions, owner: Owner, apiKey?: string): Promise<SetupResult> {
  const made = await setupOwner(options, owner);
  if (apiKey && (await keyWorks(options, apiKey))) return { owner: made, key: { kept: true } };
  const session = await EditorSession.login(options, owner.email, owner.password);
  const raw = await session.createApiKey(`soar-lab ${new Date().toISOString()}`, LAB_KEY_SCOPES);
  return { owner: made, key: { kept: false, raw } };
}
