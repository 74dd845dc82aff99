/**
 * The reference workflows as a trainee has built them up to a stage: the scripted trainee publishes these
 * step by step. Each stage of the stage checker adds the reference nodes it needs (STAGE_NODES, in the
 * checker's stage order); a partial workflow keeps the nodes of every stage up to the one asked, with
 * their ids and positions, and drops each connection to a node not built yet, so it is a valid n8n
 * workflow. Building fails when a kept node's expression or code names a node not built yet.
 */

import { buildWorkflow, type N8nExport, type NodeSpec, nodeReferences } from './build.js';
import { responseNodes } from './response.js';
import { rollbackNodes } from './rollback.js';
import { STAGE_NODES } from './stage-nodes.js';

export { STAGE_NODES };

export type TraineeStage = keyof typeof STAGE_NODES;
export const TRAINEE_STAGES = Object.keys(STAGE_NODES) as TraineeStage[];

/** The response workflow's node names built up to `stage` (`all`: every node). */
export function nodesUpTo(stage: TraineeStage | 'all'): string[] {
  if (stage === 'all') return responseNodes().map((n) => n.name);
  const upTo = TRAINEE_STAGES.indexOf(stage);
  return TRAINEE_STAGES.slice(0, upTo + 1).flatMap((s) => [...STAGE_NODES[s]]);
}

/** `workflow` cut down to the named nodes: connections to other nodes dropped, empty outputs kept as []. */
export function keepNodes(workflow: N8nExport, keep: readonly string[]): N8nExport {
  const names = new Set(keep);
  const missing = keep.filter((name) => !workflow.nodes.some((n) => n.name === name));
  if (missing.length > 0) throw new Error(`${workflow.name}: no node ${missing.join(', ')}`);
  const nodes = workflow.nodes.filter((n) => names.has(n.name));
  const problems = nodes.flatMap((n) =>
    nodeReferences(JSON.stringify(n.parameters).replace(/\\"/g, '"'))
      .filter((ref) => !names.has(ref))
      .map((ref) => `${n.name} names ${ref}, which is not built yet`),
  );
  if (problems.length > 0) throw new Error(`${workflow.name}: ${[...new Set(problems)].join('; ')}`);
  const connections: N8nExport['connections'] = {};
  for (const [from, { main }] of Object.entries(workflow.connections)) {
    if (!names.has(from)) continue;
    const outputs = main.map((targets) => targets.filter((t) => names.has(t.node)));
    if (outputs.some((targets) => targets.length > 0)) connections[from] = { main: outputs };
  }
  return { ...workflow, nodes, connections };
}

/** The trainee's own copy of a workflow: its name, its own node ids (the editor makes fresh ones), no id. */
function traineeCopy(name: string, number: number, nodes: NodeSpec[]): N8nExport {
  return buildWorkflow({ id: '', name, number, nodes });
}

export interface TraineeNames {
  response: string;
  rollback: string;
}

/**
 * The workflows a trainee has built up to `stage`: the response workflow cut to that stage, and from
 * `rollback` on (and for `all`) the whole rollback workflow too.
 */
export function traineeWorkflows(stage: TraineeStage | 'all', names: TraineeNames): N8nExport[] {
  const response = keepNodes(traineeCopy(names.response, 3, responseNodes()), nodesUpTo(stage));
  if (stage !== 'all' && stage !== 'rollback') return [response];
  return [response, traineeCopy(names.rollback, 4, rollbackNodes())];
}
