/**
 * `cli.js starter STAGE` (app/n8n/starter.ts), the real CLI over real HTTP against a stand-in of n8n's
 * public workflow API: the starter holds exactly the trainee guide's workflow up to the stage before
 * (app/workflow/guide; test/n8n/starter-guide.test.ts holds every stage's), is never published, is updated rather than duplicated, never touches the
 * trainee's own workflow (same webhook path, published), and is refused in one line when the lab's
 * starters are off or the stage has none. Each check is a function, shown to fail on a broken input.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PublicApi } from '../../app/n8n/client.js';
import { addStarter, STARTER_STAGES, StarterRefused } from '../../app/n8n/starter.js';
import type { StageName } from '../../app/stages/stages.js';
import { guideResponseUpTo } from '../../app/workflow/guide/state.js';
import { spawnNode } from '../helpers/service-process.js';
import { STORE_KEY, type StoredWorkflow, workflowStore, writes } from './workflow-store.js';

interface Run {
  code: number | null;
  stdout: string[];
  stderr: string[];
}

async function cli(url: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const proc = spawnNode('app/n8n/cli.ts', args, { N8N_URL: url, N8N_API_KEY: STORE_KEY, ...env });
  const { code } = await proc.exited;
  const lines = (text: string) => text.split('\n').filter(Boolean);
  return { code, stdout: lines(proc.stdout()), stderr: lines(proc.stderr()) };
}

/** The CLI's former FILE arguments: still taken, no longer read. */
const REFS: string[] = [];

/** The same code as the CLI's, called in process (a CLI run through tsx takes seconds). */
const add = (url: string, stage: string) => addStarter(() => new PublicApi({ url }, STORE_KEY), stage, 'on');

/** What a stage's starter must hold: the guide's workflow up to the stage before, under its name. */
function expected(upTo: StageName, name: string) {
  return guideResponseUpTo(upTo, name);
}

/** The starter named `name` is there once, unpublished, with exactly these nodes and connections. */
function starterProblems(
  store: ReadonlyMap<string, StoredWorkflow>,
  want: { name: string; nodes: unknown[]; connections: unknown },
): string[] {
  const found = [...store.values()].filter((w) => w.name === want.name);
  if (found.length !== 1) return [`${found.length} workflows named ${want.name}`];
  const [w] = found;
  const problems: string[] = [];
  if (w?.active !== false) problems.push(`${want.name} is published`);
  // Deep equality whatever the key order (n8n and zod both reorder keys).
  if (!isDeepStrictEqual(w?.nodes, want.nodes)) problems.push('nodes differ from the partial');
  if (!isDeepStrictEqual(w?.connections, want.connections))
    problems.push('connections differ from the partial');
  return problems;
}

/** The trainee's workflow is as it was, still published, and no call named it. */
function untouchedProblems(
  before: StoredWorkflow,
  store: ReadonlyMap<string, StoredWorkflow>,
  changes: string[],
): string[] {
  const after = store.get(before.id);
  const problems: string[] = [];
  if (after === undefined) return ['the trainee’s workflow is gone'];
  if (!after.active) problems.push('the trainee’s workflow was unpublished');
  if (JSON.stringify(after) !== JSON.stringify(before)) problems.push('the trainee’s workflow was changed');
  for (const c of changes.filter((c) => c.includes(`/workflows/${before.id}`))) problems.push(`called ${c}`);
  return problems;
}

/** Refused in one line naming LAB_STARTERS=off, exit 1, and n8n never asked. */
function offProblems(run: Run, calls: number): string[] {
  const problems: string[] = [];
  if (run.code !== 1) problems.push(`exit ${run.code}`);
  if (run.stdout.length > 0) problems.push(`printed ${run.stdout.join(' | ')}`);
  if (run.stderr.length !== 1 || !run.stderr[0]?.includes('LAB_STARTERS=off'))
    problems.push('no one-line refusal');
  if (calls > 0) problems.push(`${calls} call(s) to n8n`);
  return problems;
}

const trainee = (active: boolean): StoredWorkflow => {
  const mine = guideResponseUpTo('enrich', 'My Suspicious Login Response');
  return {
    id: 'mine1',
    name: mine.name,
    active,
    versionId: 'v0',
    isArchived: false,
    nodes: mine.nodes,
    connections: mine.connections,
    settings: mine.settings,
  };
};

const LINE = (verb: string, name: string, id: string | undefined, stage: string) =>
  `${verb} "${name}" (id ${id}), unpublished: unpublish your own workflow, then publish this one to go on from a working ${stage}`;

describe('cli.js starter STAGE against a stand-in n8n', () => {
  it('adds the guide up to Validate for enrich, then updates it: unpublished, the partial’s nodes, one workflow', async () => {
    const n8n = await workflowStore();
    const first = await cli(n8n.url, ['starter', 'enrich', ...REFS]);
    const [w] = [...n8n.workflows.values()];
    expect(first).toEqual({
      code: 0,
      stdout: [LINE('added', 'Starter: up to Validate', w?.id, 'Validate')],
      stderr: [],
    });
    expect(starterProblems(n8n.workflows, expected('validate', 'Starter: up to Validate'))).toEqual([]);
    expect(w?.nodes.map((n) => (n as { name: string }).name)).toEqual([
      'Webhook',
      'Validate',
      'Valid?',
      'Notify validation error',
      'Stop: alert rejected',
    ]);
    const second = await cli(n8n.url, ['starter', 'enrich', ...REFS]);
    expect(second.stdout).toEqual([LINE('updated', 'Starter: up to Validate', w?.id, 'Validate')]);
    expect(n8n.workflows.size).toBe(1);
    expect(starterProblems(n8n.workflows, expected('validate', 'Starter: up to Validate'))).toEqual([]);
    expect(writes(n8n.calls)).toEqual(['POST /api/v1/workflows', `PUT /api/v1/workflows/${w?.id}`]);
  }, 60_000);

  it('refuses in one line, exit 1, asking n8n nothing, when LAB_STARTERS is off; a bad value is a usage error', async () => {
    const n8n = await workflowStore();
    const run = await cli(n8n.url, ['starter', 'enrich', ...REFS], { LAB_STARTERS: 'off', N8N_API_KEY: '' });
    expect(run.stderr).toEqual([
      'n8n starter: starters are off in this lab (LAB_STARTERS=off): ask your trainer',
    ]);
    expect(offProblems(run, n8n.calls.length)).toEqual([]);
    const bad = await cli(n8n.url, ['starter', 'enrich', ...REFS], { LAB_STARTERS: 'maybe' });
    expect([bad.code, bad.stderr[0]]).toEqual([
      2,
      expect.stringContaining('LAB_STARTERS=maybe is not on or off'),
    ]);
    expect(n8n.calls).toEqual([]);
  }, 60_000);

  it('refuses STAGE=webhook in one line listing the valid stages, exit 1', async () => {
    const n8n = await workflowStore();
    const run = await cli(n8n.url, ['starter', 'webhook', ...REFS]);
    expect(run).toEqual({
      code: 1,
      stdout: [],
      stderr: [
        `n8n starter: webhook is the first stage, there is nothing before it to start from: a starter is for one of ${STARTER_STAGES.join(', ')}`,
      ],
    });
    expect(n8n.calls).toEqual([]);
  }, 60_000);
});

describe('addStarter (what the CLI and the console run) against a stand-in n8n', () => {
  it('leaves the trainee’s published workflow on the same webhook path as it was, and published', async () => {
    const mine = trainee(true);
    const n8n = await workflowStore([mine]);
    const before = structuredClone(n8n.workflows.get(mine.id));
    if (before === undefined) throw new Error('no seed');
    const lines = await add(n8n.url, 'case-lookup');
    const made = [...n8n.workflows.values()].find((w) => w.id !== mine.id);
    expect(lines).toEqual([LINE('added', 'Starter: up to Enrich', made?.id, 'Enrich')]);
    expect(untouchedProblems(before, n8n.workflows, writes(n8n.calls))).toEqual([]);
    expect(starterProblems(n8n.workflows, expected('enrich', 'Starter: up to Enrich'))).toEqual([]);
  });

  it.each([
    ['all', 'no stage "all"'],
    ['Enrich', 'no stage "Enrich"'],
    ['', 'no stage ""'],
  ])('refuses STAGE=%j listing the valid stages, asking n8n nothing', async (stage, says) => {
    const n8n = await workflowStore();
    const refused = await add(n8n.url, stage).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StarterRefused);
    expect((refused as StarterRefused).message).toBe(
      `${says}: a starter is for one of ${STARTER_STAGES.join(', ')}`,
    );
    expect(n8n.calls).toEqual([]);
  });

  it('does not overwrite a starter the trainee published: one line, nothing changed', async () => {
    const n8n = await workflowStore();
    await add(n8n.url, 'enrich');
    const [w] = [...n8n.workflows.values()];
    if (w === undefined) throw new Error('no starter');
    w.active = true;
    const refused = await add(n8n.url, 'enrich').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StarterRefused);
    expect((refused as StarterRefused).message).toBe(
      `"Starter: up to Validate" (id ${w.id}) is published: it is your working workflow now and adding the starter again would overwrite it; unpublish it (or rename it) in the editor first; nothing was changed`,
    );
    expect(writes(n8n.calls)).toEqual(['POST /api/v1/workflows']);
  });
});

describe('the checks above fail on a broken input', () => {
  const want = expected('validate', 'Starter: up to Validate');
  const stored = (over: Partial<StoredWorkflow> = {}): StoredWorkflow => ({
    id: 's1',
    name: want.name,
    active: false,
    versionId: 'v1',
    isArchived: false,
    nodes: want.nodes,
    connections: want.connections,
    settings: want.settings,
    ...over,
  });
  const store = (...ws: StoredWorkflow[]) => new Map(ws.map((w) => [w.id, w]));

  it('holds the good input', () => {
    expect(starterProblems(store(stored()), want)).toEqual([]);
  });

  it.each([
    ['a starter missing its last node', store(stored({ nodes: want.nodes.slice(0, -1) })), 'nodes differ'],
    [
      'a starter built up to the stage itself',
      store(stored({ nodes: expected('enrich', 'x').nodes })),
      'nodes differ',
    ],
    [
      'a starter with a connection more',
      store(stored({ connections: { ...want.connections, X: {} } })),
      'connections',
    ],
    ['a second starter of the same name', store(stored(), stored({ id: 's2' })), '2 workflows named'],
    ['no starter', store(), '0 workflows named'],
    ['a published starter', store(stored({ active: true })), 'is published'],
  ])('starterProblems: %s', (_name, input, says) => {
    expect(starterProblems(input, want).join('; ')).toContain(says);
  });

  it.each([
    ['unpublished', { active: false }, [], 'was unpublished'],
    ['changed', { name: 'renamed' }, [], 'was changed'],
    ['updated (a PUT to its id)', {}, ['PUT /api/v1/workflows/mine1'], 'called PUT'],
  ])('untouchedProblems: the trainee’s workflow %s', (_name, change, calls, says) => {
    const before = trainee(true);
    const after = store({ ...before, ...change });
    expect(untouchedProblems(before, after, calls).join('; ')).toContain(says);
    expect(untouchedProblems(before, store(before), [])).toEqual([]);
  });

  it('offProblems: a starter that was not refused, or refused for another reason', () => {
    const added = {
      code: 0,
      stdout: ['added "Starter: up to Validate" (id a1), unpublished: …'],
      stderr: [],
    };
    expect(offProblems(added, 2)).toEqual([
      'exit 0',
      expect.stringContaining('printed added'),
      'no one-line refusal',
      '2 call(s) to n8n',
    ]);
    const other = { code: 1, stdout: [], stderr: ['n8n starter: N8N_API_KEY is not set'] };
    expect(offProblems(other, 0)).toEqual(['no one-line refusal']);
  });
});
