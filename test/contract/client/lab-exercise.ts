/**
 * The README's lab exercise, written the way a lab builder would with a client generated from
 * GET /openapi.json: openapi-typescript writes ./generated/openapi.d.ts (at test time, not committed),
 * openapi-fetch sends the requests. It compiles under strict TypeScript only if the document names the
 * fields read here; test/contract/client.test.ts compiles it and runs it against the service.
 */
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

const IP = '203.0.113.66';
const EVENT = 'evt-42';

/** Runs the exercise; throws at the first answer that is not the one the README promises. */
export async function runLabExercise(baseUrl: string): Promise<string[]> {
  const api = createClient<paths>({ baseUrl });
  const log: string[] = [];
  const step = (name: string, response: Response, status: number, ok = true): void => {
    if (response.status !== status || !ok) {
      throw new Error(`${name}: expected ${status}, got ${response.status}${ok ? '' : ' (body differs)'}`);
    }
    log.push(`${name} -> ${status}`);
  };

  const health = await api.GET('/health');
  step('GET /health', health.response, 200, health.data?.case_mode === 'healthy');

  const admin = await api.GET('/identity/{user}', { params: { path: { user: 'lab-admin' } } });
  step('GET /identity/lab-admin', admin.response, 200, admin.data?.critical === true);

  const none = await api.GET('/cases/{event_id}', { params: { path: { event_id: EVENT } } });
  step(`GET /cases/${EVENT}`, none.response, 404, none.error?.error.code === 'case_not_found');

  const notified = await api.POST('/notify', {
    body: { channel: 'approval', message: `Block ${IP} for ${EVENT}?`, event_id: EVENT },
  });
  step('POST /notify', notified.response, 202, notified.data?.channel === 'approval');

  const block = { ip: IP, event_id: EVENT, expires_minutes: 10 };
  const blocked = await api.POST('/blocklist', { body: block });
  step('POST /blocklist', blocked.response, 201);
  const expiresAt: string | undefined = blocked.data?.expires_at;

  const lookup = await api.GET('/blocklist/{ip}', { params: { path: { ip: IP } } });
  const entry = lookup.data?.blocked ? lookup.data.entry : undefined;
  step(`GET /blocklist/${IP}`, lookup.response, 200, entry?.expires_at === expiresAt);

  const created = await api.POST('/cases', {
    body: {
      event_id: EVENT,
      approver: 'alice.analyst',
      result: 'blocked',
      final_action: 'blocked',
      verification: { blocked: true },
    },
  });
  const result: string | undefined = created.data?.result;
  const approver: string | null | undefined = created.data?.approver;
  step(
    'POST /cases',
    created.response,
    201,
    result === 'blocked' &&
      approver === 'alice.analyst' &&
      created.response.headers.get('location') === `/cases/${EVENT}`,
  );

  const again = await api.POST('/blocklist', { body: block });
  const existing = again.error && 'entry' in again.error ? again.error.entry : undefined;
  step('POST /blocklist again', again.response, 409, existing?.expires_at === expiresAt);

  const later = await api.POST('/control/clock', { body: { advance_minutes: 10 } });
  step('POST /control/clock', later.response, 200, typeof later.data?.now === 'string');

  const expired = await api.GET('/blocklist/{ip}', { params: { path: { ip: IP } } });
  step(`GET /blocklist/${IP} after expiry`, expired.response, 200, expired.data?.blocked === false);

  const mode = await api.POST('/control/case-mode', { body: { mode: 'fail_next_write' } });
  step('POST /control/case-mode', mode.response, 200, mode.data?.previous_mode === 'healthy');

  const failed = await api.POST('/cases', { body: { event_id: EVENT, result: 'retry' } });
  step(
    'POST /cases (fails once)',
    failed.response,
    503,
    failed.error?.error.code === 'case_connector_failed',
  );

  const retried = await api.POST('/cases', { body: { event_id: EVENT, result: 'retry' } });
  step('POST /cases (retry)', retried.response, 200, retried.data?.revision === 2);

  const state = await api.GET('/state');
  const history = state.data?.blocklist_history[0];
  const finalAction: string | undefined = state.data?.cases[0]?.final_action;
  step(
    'GET /state',
    state.response,
    200,
    history?.removed_reason === 'expired' && history.removed_at === expiresAt && finalAction === 'blocked',
  );

  const reset = await api.POST('/reset', { body: {} });
  step('POST /reset', reset.response, 200, reset.data?.reset === true);
  return log;
}
