/**
 * The guide's workflows as n8n exports, whole or as they stand after a stage: the response workflow built
 * by the stages up to it (its nodes, the connections declared so far among nodes built so far, minus the
 * ones a later stage deleted, with the settings a stage changed), and from the Rollback stage on the
 * rollback workflow. Ids are deterministic and a node keeps its id at every stage. Building fails when a
 * connection or a `$('Name')` names a node the stage has not built.
 */

import { STAGE_NAMES, type StageName } from '../../stages/stages.js';
import { RESPONSE_WORKFLOW, ROLLBACK_WORKFLOW } from '../constants.js';
import { type N8nExport, nodeReferences } from '../export.js';
import { type GuideNode, type Json, outputIndex } from './kinds.js';
import { RESPONSE_STEPS } from './response.js';
import { rollbackGuideNodes } from './rollback.js';

type Edge = { from: string; index: number; to: string };

/**
 * A change of one node of the guide's workflow, by its name: the fields given replace the node's (its
 * `parameters`, its `next`), or a function returns the changed node. The broken variants that prove each
 * stage of the checker can fail are such overrides (app/check/variants.ts).
 */
export type NodeOverride = Partial<Omit<GuideNode, 'name'>> | ((node: GuideNode) => GuideNode);
export type Overrides = Readonly<Record<string, NodeOverride>>;

/** The overrides of a response and a rollback workflow. */
export interface WorkflowOverrides {
  response?: Overrides;
  rollback?: Overrides;
}

function applyOverrides(workflow: string, nodes: GuideNode[], overrides: Overrides): GuideNode[] {
  const unknown = Object.keys(overrides).filter((name) => !nodes.some((n) => n.name === name));
  if (unknown.length > 0) throw new Error(`${workflow}: no node ${unknown.join(', ')} to override`);
  return nodes.map((node) => {
    const override = overrides[node.name];
    if (override === undefined) return node;
    return typeof override === 'function' ? override(structuredClone(node)) : { ...node, ...override };
  });
}

function uid(workflow: number, n: number): string {
  return `9d1de000-0000-4000-8000-${(workflow * 1000 + n).toString(16).padStart(12, '0')}`;
}

function edgesOf(node: GuideNode): Edge[] {
  const out = node.next.map((l) => ({ from: node.name, index: outputIndex(l.output), to: l.to }));
  if (node.after) out.push({ from: node.after.from, index: outputIndex(node.after.output), to: node.name });
  return out;
}

/** The export of `nodes` (all of the workflow's, in order: their ids follow it), keeping only `built`. */
function exportOf(
  spec: { name: string; number: number; all: GuideNode[] },
  built: ReadonlySet<string>,
  edges: Edge[],
  onError: ReadonlyMap<string, string>,
): N8nExport {
  const problems: string[] = [];
  const nodes: N8nExport['nodes'] = [];
  for (const [i, node] of spec.all.entries()) {
    if (!built.has(node.name)) continue;
    for (const ref of nodeReferences(JSON.stringify(node.parameters).replace(/\\"/g, '"')))
      if (!built.has(ref)) problems.push(`${node.name} names ${ref}, which is not built yet`);
    const n = i + 1;
    const parameters = structuredClone(node.parameters) as { conditions?: { conditions?: Json[] } };
    for (const c of parameters.conditions?.conditions ?? []) c.id = uid(spec.number, 300 + n);
    const waits = node.type === 'n8n-nodes-base.webhook' || node.type === 'n8n-nodes-base.wait';
    const error = onError.get(node.name);
    nodes.push({
      id: uid(spec.number, n),
      name: node.name,
      type: node.type,
      typeVersion: node.typeVersion,
      position: [Math.round(node.position[0] * 220), Math.round(node.position[1] * 180)],
      ...(waits ? { webhookId: uid(spec.number, 100 + n) } : {}),
      ...(error === undefined ? {} : { onError: error }),
      parameters,
    });
  }
  if (problems.length > 0) throw new Error(`${spec.name}: ${[...new Set(problems)].join('; ')}`);
  const connections: N8nExport['connections'] = {};
  for (const node of nodes) {
    const from = edges.filter((e) => e.from === node.name && built.has(e.to));
    if (from.length === 0) continue;
    const width = Math.max(...from.map((e) => e.index)) + 1;
    const main = Array.from({ length: width }, (_, index) =>
      from.filter((e) => e.index === index).map((e) => ({ node: e.to, type: 'main' as const, index: 0 })),
    );
    connections[node.name] = { main };
  }
  return {
    id: '',
    name: spec.name,
    active: false,
    settings: { executionOrder: 'v1' },
    nodes,
    connections,
    pinData: {},
    meta: { templateCredsSetupCompleted: true },
    tags: [],
  };
}

function checkNames(name: string, nodes: GuideNode[], edges: Edge[]): void {
  const names = new Set<string>();
  for (const n of nodes) {
    if (names.has(n.name)) throw new Error(`${name}: two nodes named ${n.name}`);
    names.add(n.name);
  }
  const unknown = edges.flatMap((e) => [e.from, e.to]).filter((n) => !names.has(n));
  if (unknown.length > 0) throw new Error(`${name}: a connection names ${[...new Set(unknown)].join(', ')}`);
}

/** The response workflow as it stands after `stage` (the whole of it after `rollback`). */
export function guideResponseUpTo(
  stage: StageName,
  name: string = RESPONSE_WORKFLOW,
  overrides: Overrides = {},
): N8nExport {
  const changed = applyOverrides(
    name,
    RESPONSE_STEPS.flatMap((s) => s.nodes),
    overrides,
  );
  const byName = new Map(changed.map((n) => [n.name, n]));
  const stepNodes = (step: (typeof RESPONSE_STEPS)[number]) => step.nodes.map((n) => byName.get(n.name) ?? n);
  const all = RESPONSE_STEPS.flatMap(stepNodes);
  const steps = RESPONSE_STEPS.slice(0, STAGE_NAMES.indexOf(stage) + 1);
  const built = new Set(steps.flatMap((s) => s.nodes.map((n) => n.name)));
  let edges = steps.flatMap((s) => stepNodes(s).flatMap(edgesOf));
  checkNames(name, all, all.flatMap(edgesOf));
  const onError = new Map<string, string>();
  for (const step of steps) {
    for (const d of step.deletes ?? []) {
      const index = outputIndex(d.output);
      const kept = edges.filter((e) => !(e.from === d.from && e.index === index && e.to === d.to));
      if (kept.length === edges.length)
        throw new Error(`${step.stage} deletes ${d.from} → ${d.to}: no such connection`);
      edges = kept;
    }
    for (const c of step.changes ?? []) onError.set(c.node, c.set.onError);
  }
  return exportOf({ name, number: 1, all }, built, edges, onError);
}

/** The rollback workflow (the Rollback stage builds all of it). */
export function guideRollback(name: string = ROLLBACK_WORKFLOW, overrides: Overrides = {}): N8nExport {
  const all = applyOverrides(name, rollbackGuideNodes(), overrides);
  const edges = all.flatMap(edgesOf);
  checkNames(name, all, edges);
  return exportOf({ name, number: 2, all }, new Set(all.map((n) => n.name)), edges, new Map());
}

/** The workflows a trainee following the guide has after `stage`: from `rollback` on, both. */
export function guideWorkflowsUpTo(
  stage: StageName,
  names: { response: string; rollback: string } = {
    response: RESPONSE_WORKFLOW,
    rollback: ROLLBACK_WORKFLOW,
  },
  overrides: WorkflowOverrides = {},
): N8nExport[] {
  const response = guideResponseUpTo(stage, names.response, overrides.response);
  return stage === 'rollback' ? [response, guideRollback(names.rollback, overrides.rollback)] : [response];
}
