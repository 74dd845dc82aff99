/**
 * `cli.js swap FILE...` (app/n8n/cli.ts), the real CLI over real HTTP against a stand-in of n8n's public
 * API: how make e2e-check and make e2e-guide put the next run's workflows on the one n8n a suite starts.
 * The former run's unfinished runs are stopped first and none may be left (else nothing is changed), the
 * workflows of the same name are updated in place (same id: n8n keeps no webhook path for a workflow
 * gone), every other published workflow is unpublished.
 */
import { describe, expect, it } from 'vitest';
import { spawnNode } from '../helpers/service-process.js';
import { STORE_KEY, workflowStore, writes } from './workflow-store.js';

/** The guide's whole workflows; its partials are in stages/. */
const WORKFLOWS = 'docker/workflows';
const STAGE_1 = `${WORKFLOWS}/stages/stage-01-webhook.json`;

const published = (name: string, id: string) => ({
  id,
  name,
  active: true,
  nodes: [],
  connections: {},
  settings: {},
});
const LAB = [
  published('Suspicious Login Response', 'resp1'),
  published('Suspicious Login Rollback', 'roll1'),
];

async function swap(url: string, files: string[]) {
  const proc = spawnNode('app/n8n/cli.ts', ['swap', ...files], { N8N_URL: url, N8N_API_KEY: STORE_KEY });
  const { code } = await proc.exited;
  const lines = (text: string) => text.split('\n').filter(Boolean);
  return { code, stdout: lines(proc.stdout()), stderr: lines(proc.stderr()) };
}

describe('cli.js swap FILE... against a stand-in n8n', () => {
  it('stops the former runs, unpublishes the rollback a partial lacks, updates the response in place', async () => {
    const n8n = await workflowStore(LAB, { runs: 2 });
    const run = await swap(n8n.url, [STAGE_1]);
    expect(run.stderr).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout.slice(0, 2)).toEqual([
      'stopped 2 unfinished workflow run(s)',
      'unpublished 1 other workflow(s)',
    ]);
    expect(writes(n8n.calls)).toEqual([
      'POST /api/v1/executions/stop',
      'POST /api/v1/workflows/roll1/unpublish',
      'PUT /api/v1/workflows/resp1',
      'POST /api/v1/workflows/resp1/publish',
    ]);
    expect([...n8n.workflows.values()].map((w) => [w.id, w.active])).toEqual([
      ['resp1', true],
      ['roll1', false],
    ]);
    // The partial's nodes went live: the Webhook only (stage 1).
    expect(n8n.workflows.get('resp1')?.nodes).toHaveLength(1);
  }, 60_000);

  it('publishes the whole guide back in place: the rollback unpublished before is updated, nothing created', async () => {
    const n8n = await workflowStore(
      [LAB[0] ?? published('x', 'x'), { ...published('Suspicious Login Rollback', 'roll1'), active: false }],
      { runs: 0 },
    );
    const run = await swap(n8n.url, [
      `${WORKFLOWS}/suspicious-login-response.json`,
      `${WORKFLOWS}/suspicious-login-rollback.json`,
    ]);
    expect(run.code).toBe(0);
    expect(writes(n8n.calls)).toEqual([
      'POST /api/v1/executions/stop',
      'PUT /api/v1/workflows/resp1',
      'POST /api/v1/workflows/resp1/publish',
      'PUT /api/v1/workflows/roll1',
      'POST /api/v1/workflows/roll1/publish',
    ]);
    expect([...n8n.workflows.values()].every((w) => w.active)).toBe(true);
  }, 60_000);

  it('changes nothing and exits 1 when a former run will not stop', async () => {
    const n8n = await workflowStore(LAB, { runs: 1, stuck: true });
    const run = await swap(n8n.url, [STAGE_1]);
    expect([run.code, run.stderr]).toEqual([1, ['n8n swap: runs still unfinished after 10000 ms']]);
    expect(writes(n8n.calls).filter((w) => !w.endsWith('/executions/stop'))).toEqual([]);
  }, 60_000);

  it('is a usage error without a file, asking n8n nothing', async () => {
    const n8n = await workflowStore(LAB, { runs: 0 });
    const run = await swap(n8n.url, []);
    expect(run.code).toBe(2);
    expect(n8n.calls).toEqual([]);
  }, 60_000);
});
