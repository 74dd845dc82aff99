/**
 * The stage briefs and the Add a starter control over real HTTP, the console run as its real entry point
 * against a stand-in of n8n's public workflow API (test/n8n/workflow-store.ts): GET /api/stages gives the
 * checker's own words; POST /api/starter is guarded like the other controls, runs app/n8n/starter.ts with
 * the console's N8N_API_KEY and answers its lines; LAB_STARTERS=off leaves the control off the page and
 * refuses it (403, one line); without a key it says why (503). Nothing refused ever reaches n8n.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StagesView } from '../../app/console/check-view.js';
import { STARTER_STAGES } from '../../app/n8n/starter.js';
import { checkWords } from '../../app/stages/briefs.js';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';
import { spawnNode } from '../helpers/service-process.js';
import { STORE_KEY, workflowStore, writes } from '../n8n/workflow-store.js';
import {
  GUARDED,
  guardAnswers,
  postControl,
  type RunningConsole,
  runConsole,
  stopConsoles,
} from './harness.js';

const started: RunningConsole[] = [];
let dir: string;

async function startConsole(env: Record<string, string>): Promise<RunningConsole> {
  const c = await runConsole(
    { MOCK_API_SOCKET: join(dir, 'no-mock-api.sock'), CHECK_REPORT: join(dir, 'check-last.json'), ...env },
    60_000,
  );
  started.push(c);
  return c;
}

const post = (c: RunningConsole, body: unknown, headers: Record<string, string> = {}) =>
  postControl(c, '/api/starter', body, headers);

interface Answer {
  ok?: boolean;
  lines?: string[];
  error?: { code?: string; message?: string };
}
const stagesOf = async (c: RunningConsole) =>
  (await (await fetch(`${c.url}/api/stages`)).json()) as StagesView;
const answer = async (res: Response) => ({ status: res.status, body: (await res.json()) as Answer });

/** A refusal: this status and code, one line of message, no lines added, and n8n never asked. */
function refusalProblems(
  got: { status: number; body: Answer },
  status: number,
  code: string,
  n8nCalls: number,
): string[] {
  const problems: string[] = [];
  if (got.status !== status) problems.push(`status ${got.status}`);
  if (got.body.error?.code !== code) problems.push(`code ${got.body.error?.code}`);
  const message = got.body.error?.message ?? '';
  if (message === '' || message.includes('\n')) problems.push('not one line');
  if (got.body.lines !== undefined) problems.push('lines were added');
  if (n8nCalls > 0) problems.push(`${n8nCalls} call(s) to n8n`);
  return problems;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'soar-console-starter-'));
});
afterAll(async () => {
  await stopConsoles(started);
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/stages and POST /api/starter, starters on', () => {
  it('gives each stage’s brief in the checker’s words, and the starter for each stage after webhook', async () => {
    const n8n = await workflowStore();
    const c = await startConsole({ N8N_URL: n8n.url, N8N_API_KEY: STORE_KEY });
    const stages = await stagesOf(c);
    expect(stages.briefs).toEqual(checkWords(APPROVAL_THRESHOLD).briefs);
    expect(stages.briefs.map((b) => b.stage)).toEqual([...STAGE_NAMES]);
    expect(stages.starter).toEqual({
      shown: true,
      unavailable: null,
      stages: STARTER_STAGES.map((stage) => ({ stage, name: expect.stringMatching(/^Starter: up to /) })),
    });
    expect(stages.starter.stages[2]).toEqual({ stage: 'case-lookup', name: 'Starter: up to Enrich' });
    const page = await (await fetch(c.url)).text();
    expect(page).toContain('<button id="starter-add" type="button"');
    expect(page).toContain('<div id="stage-brief"');

    // Refusals first, each next to the valid request below; none reaches n8n.
    expect(await guardAnswers(c, '/api/starter', { stage: 'enrich' })).toEqual(GUARDED);
    expect((await post(c, { stage: 42 })).status).toBe(400);
    const webhook = await answer(await post(c, { stage: 'webhook' }));
    expect(refusalProblems(webhook, 400, 'bad_stage', n8n.calls.length)).toEqual([]);
    expect(webhook.body.error?.message).toBe(
      `webhook is the first stage, there is nothing before it to start from: a starter is for one of ${STARTER_STAGES.join(', ')}`,
    );
    const unknown = await answer(await post(c, { stage: 'all; rm -rf /' }));
    expect(refusalProblems(unknown, 400, 'bad_stage', n8n.calls.length)).toEqual([]);

    const added = await answer(await post(c, { stage: 'enrich' }));
    const [w] = [...n8n.workflows.values()];
    const line = `"Starter: up to Validate" (id ${w?.id}), unpublished: unpublish your own workflow, then publish this one to go on from a working Validate`;
    expect(added).toEqual({
      status: 200,
      body: { ok: true, lines: [`added ${line}`], message: `added ${line}` },
    });
    expect(n8n.calls.every((call) => call.headers['x-n8n-api-key'] === STORE_KEY)).toBe(true);
    const again = await answer(await post(c, { stage: 'enrich' }));
    expect(again.body.lines).toEqual([`updated ${line}`]);
    expect(writes(n8n.calls)).toEqual(['POST /api/v1/workflows', `PUT /api/v1/workflows/${w?.id}`]);

    // A starter the trainee published is theirs now: 409, nothing written.
    if (w) w.active = true;
    const published = await answer(await post(c, { stage: 'enrich' }));
    expect([published.status, published.body.error?.code]).toEqual([409, 'starter_published']);
    expect(writes(n8n.calls)).toHaveLength(2);
  }, 90_000);

  it('says why without an n8n API key (503), and tells n8n’s refusal apart (502)', async () => {
    const n8n = await workflowStore();
    const noKey = await startConsole({ N8N_URL: n8n.url });
    const stages = await stagesOf(noKey);
    expect(stages.starter.unavailable).toMatch(/needs n8n’s API key \(N8N_API_KEY\)/);
    const refused = await answer(await post(noKey, { stage: 'enrich' }));
    expect(refusalProblems(refused, 503, 'starter_unavailable', n8n.calls.length)).toEqual([]);

    const wrongKey = await startConsole({ N8N_URL: n8n.url, N8N_API_KEY: 'stale-key' });
    const failed = await answer(await post(wrongKey, { stage: 'enrich' }));
    expect(failed.status).toBe(502);
    expect(failed.body.error?.message).toBe('n8n answered 401 to GET /api/v1/workflows: unauthorized');
    expect(n8n.workflows.size).toBe(0);
  }, 90_000);
});

describe('LAB_STARTERS=off', () => {
  it('leaves the control off the page and refuses every POST with 403 in one line, n8n never asked', async () => {
    const n8n = await workflowStore();
    const c = await startConsole({ N8N_URL: n8n.url, N8N_API_KEY: STORE_KEY, LAB_STARTERS: 'off' });
    const page = await (await fetch(c.url)).text();
    expect(page).not.toContain('starter-add');
    expect(page).toContain('<div id="stage-brief"');
    const stages = await stagesOf(c);
    expect(stages.starter.shown).toBe(false);
    expect(stages.briefs).toHaveLength(STAGE_NAMES.length);
    for (const body of [{ stage: 'enrich' }, { stage: 'webhook' }, 'not json']) {
      const got = await answer(await post(c, body));
      expect(refusalProblems(got, 403, 'starters_off', n8n.calls.length), JSON.stringify(body)).toEqual([]);
      expect(got.body.error?.message).toBe(
        'starters are off in this lab (LAB_STARTERS=off): ask your trainer',
      );
    }
    // Still guarded: a wrong token is refused by the guard first.
    expect(
      (await answer(await post(c, { stage: 'enrich' }, { 'x-console-token': 'x' }))).body.error?.code,
    ).toBe('token_missing');
  }, 90_000);

  it('a value other than on or off stops the console with one line naming LAB_STARTERS', async () => {
    const proc = spawnNode('app/console/main.ts', [], { CONSOLE_PORT: '0', LAB_STARTERS: 'maybe' });
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.stderr()).toBe('console: invalid LAB_STARTERS "maybe": must be on or off\n');
  }, 60_000);
});

describe('refusalProblems fails on a broken input', () => {
  const good = { status: 403, body: { ok: false, error: { code: 'starters_off', message: 'off' } } };
  it.each([
    ['another status', { ...good, status: 200 }, 0, 'status 200'],
    ['another code', { ...good, body: { error: { code: 'bad_stage', message: 'x' } } }, 0, 'code bad_stage'],
    ['no message', { ...good, body: { error: { code: 'starters_off' } } }, 0, 'not one line'],
    ['two lines', { ...good, body: { error: { code: 'starters_off', message: 'a\nb' } } }, 0, 'not one line'],
    ['a starter added', { ...good, body: { ...good.body, lines: ['added'] } }, 0, 'lines were added'],
    ['a call to n8n', good, 1, '1 call(s) to n8n'],
  ])('%s', (_name, got, calls, says) => {
    expect(refusalProblems(good, 403, 'starters_off', 0)).toEqual([]);
    expect(refusalProblems(got, 403, 'starters_off', calls)).toContain(says);
  });
});
