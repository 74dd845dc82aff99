/**
 * The scripted trainee's partial workflows (app/workflow/n8n/partial.ts): the node set per stage is held
 * here as a table, each partial is a valid workflow (no connection to a missing node), and `all` is the
 * reference itself under the trainee's names.
 */
import { describe, expect, it } from 'vitest';
import { STAGE_NAMES } from '../../app/stages/stages.js';
import {
  keepNodes,
  nodesUpTo,
  STAGE_NODES,
  TRAINEE_STAGES,
  traineeWorkflows,
} from '../../app/workflow/n8n/partial.js';
import { responseWorkflow } from '../../app/workflow/n8n/response.js';
import { rollbackWorkflow } from '../../app/workflow/n8n/rollback.js';

const NAMES = { response: 'My Response', rollback: 'My Rollback' };

describe('partial workflows', () => {
  it("has the stage checker's stages, in its order", () => {
    expect(TRAINEE_STAGES).toEqual([...STAGE_NAMES]);
  });

  it('puts every reference node in exactly one stage', () => {
    const all = Object.values(STAGE_NODES).flat();
    expect([...all].sort()).toEqual(
      responseWorkflow()
        .nodes.map((n) => n.name)
        .sort(),
    );
    expect(new Set(all).size).toBe(all.length);
  });

  it('builds up to validate: Webhook and Validate, its error notification and Stop and Error', () => {
    const [w, ...rest] = traineeWorkflows('validate', NAMES);
    expect(rest).toEqual([]);
    expect(w?.name).toBe('My Response');
    expect(w?.nodes.map((n) => n.name)).toEqual([
      'Webhook',
      'Settings',
      'Validate',
      'Valid?',
      'Notify validation error',
      'Stop: alert rejected',
    ]);
    // The true output of Valid? (to Enrich) is not built yet: an empty output, no dangling connection.
    expect(w?.connections['Valid?']?.main.map((o) => o.map((c) => c.node))).toEqual([
      [],
      ['Notify validation error'],
    ]);
  });

  it('builds up to enrich: the identity check added', () => {
    expect(nodesUpTo('enrich').slice(6)).toEqual(['Enrich', 'Check identity', 'Identity ok?']);
    const [w] = traineeWorkflows('enrich', NAMES);
    expect(w?.connections['Identity ok?']?.main.map((o) => o.map((c) => c.node))).toEqual([
      [],
      ['Notify validation error'],
    ]);
  });

  it('connects only built nodes, at every stage', () => {
    for (const stage of [...TRAINEE_STAGES, 'all' as const]) {
      for (const w of traineeWorkflows(stage, NAMES)) {
        const names = new Set(w.nodes.map((n) => n.name));
        for (const [from, { main }] of Object.entries(w.connections)) {
          expect(names.has(from), `${stage}: ${from}`).toBe(true);
          for (const c of main.flat()) expect(names.has(c.node), `${stage}: ${from} -> ${c.node}`).toBe(true);
        }
      }
    }
  });

  it("gives all: the whole response and rollback workflows, with the trainee's names and own node ids", () => {
    const [response, rollback] = traineeWorkflows('all', NAMES);
    // Node, webhook, assignment and condition ids are the trainee's own: compared without them.
    const strip = (w: ReturnType<typeof responseWorkflow>) =>
      JSON.stringify({ nodes: w.nodes, connections: w.connections }).replace(/5e1f0000-[0-9a-f-]{27}/g, 'ID');
    expect(strip(response ?? responseWorkflow())).toEqual(strip(responseWorkflow()));
    expect(strip(rollback ?? responseWorkflow())).toEqual(strip(rollbackWorkflow()));
    expect([response?.name, rollback?.name]).toEqual(['My Response', 'My Rollback']);
    const referenceIds = new Set([...responseWorkflow().nodes, ...rollbackWorkflow().nodes].map((n) => n.id));
    expect([...(response?.nodes ?? []), ...(rollback?.nodes ?? [])].some((n) => referenceIds.has(n.id))).toBe(
      false,
    );
  });

  it('keeps node ids from step to step, as the editor does', () => {
    const ids = (stage: 'validate' | 'enrich') =>
      Object.fromEntries((traineeWorkflows(stage, NAMES)[0]?.nodes ?? []).map((n) => [n.name, n.id]));
    expect(ids('enrich')).toMatchObject(ids('validate'));
  });

  it('refuses a cut that keeps a node whose code names a node not built', () => {
    expect(() => keepNodes(responseWorkflow(), ['Webhook', 'Settings', 'Enrich'])).toThrow(
      /Enrich names Validate/,
    );
    expect(() => keepNodes(responseWorkflow(), ['Webhook', 'Nope'])).toThrow(/no node Nope/);
  });
});
