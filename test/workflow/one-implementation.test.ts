/**
 * The n8n workflows and the TypeScript reference are one implementation: on a table of scripted runs
 * covering every branch of the protocol (./scenarios.ts), the generated JSON, run node by node with its
 * Code nodes and expressions in node:vm (./n8n-sim.ts), makes exactly the requests the reference makes
 * and ends the same way. A change on either side is caught (the broken copies below).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../app/api/config.js';
import { REFERENCE_NODES, ROLLBACK_NODES } from '../../app/targets/reference-workflow.js';
import { APPROVAL_THRESHOLD, DEFAULT_MOCK_API_URL } from '../../app/workflow/constants.js';
import { belowThresholdOutcome, buildRollbackRecord } from '../../app/workflow/decisions.js';
import { DECIDE } from '../../app/workflow/n8n/stage-nodes.js';
import { loadJson, type N8nWorkflow, WORKFLOW_DIR } from './checks.js';
import { mismatches, recorded, runN8n, runReference, SCENARIOS } from './scenarios.js';

const response = loadJson<N8nWorkflow>(join(WORKFLOW_DIR, 'suspicious-login-response.json'));
const rollback = loadJson<N8nWorkflow>(join(WORKFLOW_DIR, 'suspicious-login-rollback.json'));

function withNode(wf: N8nWorkflow, name: string, edit: (parameters: Record<string, unknown>) => void) {
  const copy = structuredClone(wf);
  const node = copy.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  edit(node.parameters);
  return copy;
}

const replaceIn = (key: string, from: string, to: string) => (p: Record<string, unknown>) => {
  const text = JSON.stringify(p[key]);
  if (!text.includes(JSON.stringify(from).slice(1, -1))) throw new Error(`${key} has no ${from}`);
  p[key] = JSON.parse(text.replace(JSON.stringify(from).slice(1, -1), JSON.stringify(to).slice(1, -1)));
};

describe('the scenario table', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s: the reference records %s', async (_n, s) => {
    const run = await runReference(s);
    expect(run.unscripted).toEqual([]);
    expect(recorded(run)).toBe(s.expect);
  });

  it('covers every Code node and every IF output of both workflows', () => {
    const seen = new Set<string>();
    for (const s of SCENARIOS) {
      const wf = s.workflow === 'response' ? response : rollback;
      for (const name of runN8n(s, wf).path) seen.add(`${wf.name}: ${name}`);
    }
    const expected = [response, rollback].flatMap((wf) =>
      wf.nodes.flatMap((n) => {
        const outputs = wf.connections[n.name]?.main.length ?? 0;
        return outputs === 2
          ? [`${wf.name}: ${n.name}#0`, `${wf.name}: ${n.name}#1`]
          : [`${wf.name}: ${n.name}`];
      }),
    );
    expect(expected.filter((e) => !seen.has(e))).toEqual([]);
  });
});

describe("the generated n8n workflows make the reference's requests", () => {
  it('on every scenario', async () => {
    expect(await mismatches(response, rollback)).toEqual([]);
  });

  it('a Code node changed on the n8n side is caught (Validate no longer trims)', async () => {
    const broken = withNode(response, 'Validate', replaceIn('jsCode', "x.trim() !== ''", "x !== ''"));
    expect((await mismatches(broken, rollback)).join('\n')).toMatch(/whitespace-only user/);
  });

  it('an expression changed on the n8n side is caught (Decide says > instead of >=)', async () => {
    const broken = withNode(response, DECIDE, (p) => {
      p.conditions = JSON.parse(JSON.stringify(p.conditions).replace('>= ', '> '));
    });
    expect((await mismatches(broken, rollback)).join('\n')).toMatch(/at the threshold/);
  });

  it('a rollback record changed on the n8n side is caught', async () => {
    const broken = withNode(
      rollback,
      'Build rollback record',
      replaceIn('jsCode', 'entry_removed', 'removed'),
    );
    expect((await mismatches(response, broken)).join('\n')).toMatch(/^rollback: /m);
  });

  it('a node changed on the reference side is caught (decide with > instead of >=)', async () => {
    const above = {
      ...REFERENCE_NODES,
      decide: async (...args: Parameters<typeof REFERENCE_NODES.decide>) =>
        args[1].confidence > APPROVAL_THRESHOLD
          ? REFERENCE_NODES.decide(...args)
          : { kind: 'record' as const, outcome: belowThresholdOutcome() },
    };
    expect((await mismatches(response, rollback, { response: above })).join('\n')).toMatch(
      /at the threshold/,
    );
  });

  it('a rollback record changed on the reference side is caught (no rounding, no workflow name)', async () => {
    const drifted = {
      ...ROLLBACK_NODES,
      recordRollback: async (...args: Parameters<typeof ROLLBACK_NODES.recordRollback>) => {
        const [ctx, eventId, ip, removed] = args;
        const { rollback: r, ...rest } = buildRollbackRecord(eventId, ip, removed, 'a', 'b');
        const { workflow: _w, entry_removed: _e, ...kept } = r;
        await ctx.api.request('POST', '/cases', { ...rest, rollback: kept });
      },
    };
    expect((await mismatches(response, rollback, { rollback: drifted })).join('\n')).toMatch(/^rollback: /m);
  });
});

describe('the constants are declared once', () => {
  it('the n8n default of MOCK_API_URL is the mock API’s own default address', () => {
    const config = loadConfig([], {});
    expect(DEFAULT_MOCK_API_URL).toBe(`http://${config.host}:${config.port}`);
  });
});
