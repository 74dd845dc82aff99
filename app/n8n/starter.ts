/**
 * Starters, for a trainee stuck at a stage: the reference workflow complete up to the stage before it,
 * added to the trainee's n8n through the public API and never published, named for that stage: "Starter:
 * up to Validate" for STAGE=enrich. `make starter` (cli.ts `starter STAGE`) and the console's "Add a
 * starter" run this code.
 *
 * - What it holds: the reference exports (`make solution`'s files, /lab/workflows in the lab), cut to the
 *   nodes of the stages before STAGE exactly as app/workflow/n8n/partial.ts cuts them for the scripted
 *   trainee (keepNodes: the same nodes, connections to nodes not built yet dropped). It is read from the
 *   exports because the lab's image cannot build workflows (app/workflow/n8n transpiles its Code nodes with
 *   TypeScript, a dev dependency, from .ts files the image does not hold); the nodes of each stage are
 *   app/workflow/n8n/stage-nodes.ts's, which partial.ts cuts by too; test/n8n/starter.test.ts holds every
 *   starter equal to partial.ts's cut.
 * - Only the starters' own workflows are touched, found by their exact names: adding the same starter again
 *   updates it (one workflow per name); every other workflow, the trainee's own above all, is never
 *   changed, published or unpublished. A starter on a webhook path the trainee's published workflow holds
 *   is fine: it is saved, not published.
 * - A starter that is published already is the trainee's working workflow now: it is not overwritten; the
 *   refusal says so and nothing is changed.
 * - STAGE=webhook (nothing before it) and unknown stages are refused, listing the valid ones; so is every
 *   stage when the lab's LAB_STARTERS is off.
 * - STAGE=rollback (the response complete up to Connector failure) adds a second workflow, "Starter: up to
 *   Connector failure (rollback)": the rollback workflow cut to its trigger, the nodes of the response
 *   workflow's Webhook stage (Webhook, Settings) on the rollback's own path. Decided so because the stage
 *   before Rollback has no rollback workflow at all, and the whole one would be the Rollback stage's answer:
 *   this gives its start (the right path) and leaves the stage to the trainee.
 */
import { z } from 'zod';
import { STAGE_NAMES, type StageName } from '../harness/check-report.js';
import { STAGE_TITLES } from '../harness/stage-briefs.js';
import { STAGE_NODES } from '../workflow/n8n/stage-nodes.js';
import {
  type PublicApi,
  type Workflow,
  type WorkflowBody,
  type WorkflowNode,
  WorkflowNodeSchema,
} from './client.js';
import { type Reference, SolutionRefused } from './solution.js';
import { webhooksOf } from './webhooks.js';

/** The response workflow's nodes by the stage that adds them, for every stage the checker has. */
const STARTER_NODES: Record<StageName, readonly string[]> = STAGE_NODES;

/** LAB_STARTERS: the lab lets trainees add starters (`on`, the default) or refuses them (`off`). */
export const STARTERS_VALUES = ['on', 'off'] as const;
export type Starters = (typeof STARTERS_VALUES)[number];

/** The stages a starter is for: every stage that has one before it. */
export const STARTER_STAGES: readonly StageName[] = STAGE_NAMES.slice(1);

export type StarterRefusal = 'starters_off' | 'bad_stage' | 'starter_published';

/** A refusal in one line; nothing was changed. */
export class StarterRefused extends Error {
  constructor(
    readonly code: StarterRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface StarterWorkflow {
  body: WorkflowBody;
  /** What the trainee does with it, the end of its line. */
  next: string;
}

/** The refusal of a lab whose LAB_STARTERS is off. */
export const startersOff = () =>
  new StarterRefused('starters_off', 'starters are off in this lab (LAB_STARTERS=off): ask your trainer');

const valid = () => `a starter is for one of ${STARTER_STAGES.join(', ')}`;

/** The stage a starter is asked for, parsed: `webhook` and unknown names refused in one line. */
export function starterStage(stage: string): StageName {
  const found = STARTER_STAGES.find((s) => s === stage);
  if (found !== undefined) return found;
  if (stage === STAGE_NAMES[0]) {
    throw new StarterRefused(
      'bad_stage',
      `${stage} is the first stage, there is nothing before it to start from: ${valid()}`,
    );
  }
  const shown = JSON.stringify(stage.length > 40 ? `${stage.slice(0, 40)}…` : stage);
  throw new StarterRefused('bad_stage', `no stage ${shown}: ${valid()}`);
}

/** The name of the starter for `stage`: "Starter: up to <the title of the stage before>". */
export function starterName(stage: StageName): string {
  return `Starter: up to ${STAGE_TITLES[before(stage)]}`;
}

function before(stage: StageName): StageName {
  const previous = STAGE_NAMES[STAGE_NAMES.indexOf(stage) - 1];
  if (previous === undefined) throw new StarterRefused('bad_stage', `${stage} has no stage before it`);
  return previous;
}

const ConnectionsSchema = z.record(
  z.string(),
  z.looseObject({ main: z.array(z.array(z.looseObject({ node: z.string() })).nullable()) }),
);

/**
 * `workflow` cut down to the named nodes, as partial.ts's keepNodes cuts it: the nodes in their order,
 * connections to other nodes dropped, an output left empty ([]) where it led only to nodes not kept.
 */
export function cutTo(
  workflow: WorkflowBody,
  keep: readonly string[],
  name: string,
): WorkflowBody & { nodes: WorkflowNode[] } {
  const names = new Set(keep);
  const nodes = nodesOf(workflow).filter((n) => names.has(n.name));
  const missing = keep.filter((k) => !nodes.some((n) => n.name === k));
  if (missing.length > 0)
    throw new SolutionRefused(`the reference "${workflow.name}" has no node ${missing.join(', ')}`);
  const parsed = ConnectionsSchema.safeParse(workflow.connections);
  if (!parsed.success)
    throw new SolutionRefused(`the reference "${workflow.name}" has unreadable connections`);
  const connections: Record<string, unknown> = {};
  for (const [from, { main, ...rest }] of Object.entries(parsed.data)) {
    if (!names.has(from)) continue;
    const outputs = main.map((targets) => (targets ?? []).filter((t) => names.has(t.node)));
    if (outputs.some((targets) => targets.length > 0)) connections[from] = { ...rest, main: outputs };
  }
  return { name, nodes, connections, settings: workflow.settings };
}

function nodesOf(workflow: WorkflowBody): WorkflowNode[] {
  const parsed = z.array(WorkflowNodeSchema).safeParse(workflow.nodes);
  if (!parsed.success) throw new SolutionRefused(`the reference "${workflow.name}" has unreadable nodes`);
  return parsed.data;
}

/** The response workflow's node names built up to `stage`. */
export function nodesUpTo(stage: StageName): string[] {
  return STAGE_NAMES.slice(0, STAGE_NAMES.indexOf(stage) + 1).flatMap((s) => [...STARTER_NODES[s]]);
}

/**
 * The workflows of the starter for `stage`, as they are saved (never published), from the reference
 * exports: the response workflow is the one holding every node of the stages, the rollback the other.
 */
export function starterWorkflows(stage: StageName, references: readonly Reference[]): StarterWorkflow[] {
  const upTo = before(stage);
  const name = starterName(stage);
  const title = STAGE_TITLES[upTo];
  const all = nodesUpTo('rollback');
  const holds = (r: Reference) => all.every((n) => nodesOf(r.body).some((node) => node.name === n));
  const response = references.find(holds);
  if (response === undefined) {
    throw new SolutionRefused(
      `no reference response workflow among ${references.map((r) => r.file).join(', ')}: the starter is cut from it`,
    );
  }
  const out: StarterWorkflow[] = [
    {
      body: cutTo(response.body, nodesUpTo(upTo), name),
      next: `unpublish your own workflow, then publish this one to go on from a working ${title}`,
    },
  ];
  if (stage === 'rollback') {
    const rollback = references.find((r) => r !== response);
    if (rollback === undefined)
      throw new SolutionRefused('no reference rollback workflow beside the response');
    const trigger = cutTo(rollback.body, STARTER_NODES.webhook, `${name} (rollback)`);
    const paths = webhooksOf(trigger.nodes).map((l) => `${l.method} /webhook/${l.path}`);
    out.push({
      body: trigger,
      next: `the rollback's trigger only (${paths.join(', ')}): build the rollback on in it, then publish it (unpublish your own rollback workflow first, if you have one)`,
    });
  }
  return out;
}

const show = (w: Pick<Workflow, 'id' | 'name'>) => `"${w.name}" (id ${w.id})`;

/**
 * Adds (or updates) the starter for `stage` in the trainee's n8n; one line per workflow, naming it, its
 * id, "unpublished" and what to do. `references` (the reference exports, read as `solution` reads them)
 * and `connect` are called only once the starter is allowed and its stage valid (a refusal needs no files,
 * no n8n and no key). Throws StarterRefused or SolutionRefused (nothing changed), or N8nError.
 */
export async function addStarter(
  connect: () => PublicApi,
  stage: string,
  starters: Starters,
  references: () => readonly Reference[],
): Promise<string[]> {
  if (starters === 'off') throw startersOff();
  const wanted = starterWorkflows(starterStage(stage), references());
  const api = connect();
  const all = (await api.listWorkflows()).filter((w) => w.isArchived !== true);
  const existing = wanted.map(({ body }) => all.find((w) => w.name === body.name));
  const live = existing.find((w) => w?.active === true);
  if (live !== undefined) {
    throw new StarterRefused(
      'starter_published',
      `${show(live)} is published: it is your working workflow now and adding the starter again would overwrite it; ` +
        'unpublish it (or rename it) in the editor first; nothing was changed',
    );
  }
  const lines: string[] = [];
  for (const [i, { body, next }] of wanted.entries()) {
    const old = existing[i];
    const saved = old ? await api.updateWorkflow(old.id, body) : await api.createWorkflow(body);
    const state = saved.active ? 'published' : 'unpublished';
    lines.push(`${old ? 'updated' : 'added'} ${show(saved)}, ${state}: ${next}`);
  }
  return lines;
}
