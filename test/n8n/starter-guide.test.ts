/**
 * Starters are the trainee guide's workflow up to the stage before, node for node (app/n8n/starter.ts over
 * app/workflow/guide): a trainee who takes the starter for a stage and then does what the guide's stage
 * says (adds its table's nodes with their connections, deletes and changes what it says) has exactly the
 * guide's workflow after that stage. Nothing of the stage is in the starter already (no "Duplicate
 * delivery?1"), and everything the stage connects to or deletes is. Also the CLI and addStarter against a
 * stand-in of n8n's public API: the starter saved unpublished, as built.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PublicApi } from '../../app/n8n/client.js';
import { addStarter, STARTER_STAGES, starterName, starterWorkflows } from '../../app/n8n/starter.js';
import { STAGE_NAMES, type StageName } from '../../app/stages/stages.js';
import { outputIndex } from '../../app/workflow/guide/kinds.js';
import { RESPONSE_STEPS, type StageStep } from '../../app/workflow/guide/response.js';
import { guideResponseUpTo } from '../../app/workflow/guide/state.js';
import { spawnNode } from '../helpers/service-process.js';
import { STORE_KEY, workflowStore, writes } from './workflow-store.js';

type Connections = Record<string, { main: { node: string }[][] }>;
type Body = { nodes: unknown[]; connections: Record<string, unknown> };

const names = (body: Body) => body.nodes.map((n) => (n as { name: string }).name);
const edges = (body: Body) =>
  Object.entries(body.connections as Connections).flatMap(([from, { main }]) =>
    main.flatMap((targets, i) => targets.map((t) => `${from} #${i} → ${t.node}`)),
  );

/**
 * What the trainee meets doing `step` on `starter`: every way the stage's instructions do not fit it
 * (a node already there, a connection to delete or a node to connect from that is not), and the
 * workflow they end with (node names and connections; ids and positions are the editor's).
 */
function follow(starter: Body, step: StageStep): { problems: string[]; names: string[]; edges: string[] } {
  const have = new Set(names(starter));
  const links = new Set(edges(starter));
  const problems: string[] = [];
  for (const d of step.deletes ?? []) {
    const link = `${d.from} #${outputIndex(d.output)} → ${d.to}`;
    if (!links.delete(link)) problems.push(`no connection ${link} to delete`);
  }
  for (const c of step.changes ?? []) if (!have.has(c.node)) problems.push(`no ${c.node} to change`);
  for (const node of step.nodes) {
    if (have.has(node.name)) problems.push(`${node.name} is there already`);
    have.add(node.name);
  }
  for (const node of step.nodes) {
    if (node.after) {
      if (!have.has(node.after.from)) problems.push(`no ${node.after.from} to connect ${node.name} after`);
      links.add(`${node.after.from} #${outputIndex(node.after.output)} → ${node.name}`);
    }
    for (const l of node.next)
      if (have.has(l.to)) links.add(`${node.name} #${outputIndex(l.output)} → ${l.to}`);
  }
  // A connection an earlier stage declared to a node this stage adds.
  for (const earlier of RESPONSE_STEPS.slice(0, RESPONSE_STEPS.indexOf(step)).flatMap((s) => s.nodes))
    for (const l of earlier.next)
      if (step.nodes.some((n) => n.name === l.to))
        links.add(`${earlier.name} #${outputIndex(l.output)} → ${l.to}`);
  return { problems, names: [...have].sort(), edges: [...links].sort() };
}

const stepOf = (stage: StageName) => RESPONSE_STEPS.find((s) => s.stage === stage) as StageStep;

describe('the starter for a stage, then the guide’s stage, is the guide after that stage', () => {
  it.each(STARTER_STAGES.map((s) => [s]))('%s', (stage) => {
    const [starter, ...more] = starterWorkflows(stage);
    if (starter === undefined) throw new Error('no starter');
    expect(more).toEqual([]);
    const before = STAGE_NAMES[STAGE_NAMES.indexOf(stage) - 1] as StageName;
    const guideBefore = guideResponseUpTo(before);
    expect(starter.body.name).toBe(starterName(stage));
    expect(starter.body.nodes).toEqual(guideBefore.nodes);
    expect(starter.body.connections).toEqual(guideBefore.connections);
    const after = guideResponseUpTo(stage);
    const done = follow(starter.body, stepOf(stage));
    expect(done.problems).toEqual([]);
    expect(done.names).toEqual(names(after).sort());
    expect(done.edges).toEqual(edges(after).sort());
  });

  it('control: a starter cut from the whole workflow (the later stages’ nodes in it) does not fit', () => {
    const whole = guideResponseUpTo('connector-failure');
    expect(follow(whole, stepOf('idempotency')).problems).toEqual([
      'no connection Decide (confidence >= 80) #0 → Request approval to delete',
      'Duplicate delivery? is there already',
      'Keep first outcome is there already',
    ]);
    expect(follow(guideResponseUpTo('block'), stepOf('record')).edges).not.toEqual(
      edges(guideResponseUpTo('idempotency')).sort(),
    );
  });
});

describe('adding a starter against a stand-in n8n', () => {
  it('addStarter saves the guide up to Record for idempotency, unpublished, then updates it', async () => {
    const n8n = await workflowStore();
    const add = () => addStarter(() => new PublicApi({ url: n8n.url }, STORE_KEY), 'idempotency', 'on');
    const [line] = await add();
    const [w] = [...n8n.workflows.values()];
    expect(line).toBe(
      `added "Starter: up to Record" (id ${w?.id}), unpublished: unpublish your own workflow, then publish this one to go on from a working Record`,
    );
    const want = guideResponseUpTo('record');
    expect(w?.active).toBe(false);
    expect(isDeepStrictEqual(w?.nodes, want.nodes)).toBe(true);
    expect(isDeepStrictEqual(w?.connections, want.connections)).toBe(true);
    expect(await add()).toEqual([expect.stringMatching(/^updated "Starter: up to Record"/)]);
    expect(writes(n8n.calls)).toEqual(['POST /api/v1/workflows', `PUT /api/v1/workflows/${w?.id}`]);
  });

  it('the CLI adds the starter for rollback: the response up to Connector failure, no rollback workflow', async () => {
    const n8n = await workflowStore();
    const proc = spawnNode('app/n8n/cli.ts', ['starter', 'rollback'], {
      N8N_URL: n8n.url,
      N8N_API_KEY: STORE_KEY,
    });
    const { code } = await proc.exited;
    expect([code, proc.stderr()]).toEqual([0, '']);
    const [w, ...more] = [...n8n.workflows.values()];
    expect(more).toEqual([]);
    expect(proc.stdout()).toContain('then create the rollback workflow as the guide’s Rollback stage says');
    expect(w?.nodes).toEqual(guideResponseUpTo('connector-failure').nodes);
  }, 60_000);
});
