/**
 * Starters, for a trainee stuck at a stage: the trainee guide's workflow as it stands after the stage
 * before, added to the trainee's n8n through the public API and never published, named for that stage:
 * "Starter: up to Validate" for STAGE=enrich. `make starter` (cli.ts `starter STAGE`) and the console's "Add
 * a starter" run this code.
 *
 * - What it holds: app/workflow/guide's workflow after the stage before STAGE, node for node (the same
 *   names, parameters, code and connections as docs/trainee-guide.md, a test holds them equal), so a
 *   trainee who goes on with the guide's next stage meets what the guide describes: the connection stage 9
 *   deletes is there to delete, no node of a later stage is. The guide's workflow is plain data compiled
 *   with the rest (no TypeScript at run time), so the lab's image needs no workflow files for it.
 * - Only the starters' own workflows are touched, found by their exact names: adding the same starter again
 *   updates it (one workflow per name); every other workflow, the trainee's own above all, is never
 *   changed, published or unpublished. A starter on a webhook path the trainee's published workflow holds
 *   is fine: it is saved, not published.
 * - A starter that is published already is the trainee's working workflow now: it is not overwritten; the
 *   refusal says so and nothing is changed.
 * - STAGE=webhook (nothing before it) and unknown stages are refused, listing the valid ones; so is every
 *   stage when the lab's LAB_STARTERS is off.
 * - STAGE=rollback: the response workflow complete up to Connector failure, nothing of the rollback
 *   workflow (the guide's Rollback stage begins by creating it).
 */
import { STAGE_NAMES, STAGE_TITLES, type StageName } from '../stages/stages.js';
import { guideResponseUpTo } from '../workflow/guide/state.js';
import type { PublicApi, Workflow, WorkflowBody } from './client.js';

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

/**
 * The workflows of the starter for `stage`, as they are saved (never published): the guide's response
 * workflow after the stage before, under the starter's name.
 */
export function starterWorkflows(stage: StageName): StarterWorkflow[] {
  const upTo = before(stage);
  const { name, nodes, connections, settings } = guideResponseUpTo(upTo, starterName(stage));
  const then =
    stage === 'rollback' ? ', then create the rollback workflow as the guide’s Rollback stage says' : '';
  return [
    {
      body: { name, nodes, connections, settings },
      next: `unpublish your own workflow, then publish this one to go on from a working ${STAGE_TITLES[upTo]}${then}`,
    },
  ];
}

const show = (w: Pick<Workflow, 'id' | 'name'>) => `"${w.name}" (id ${w.id})`;

/**
 * Adds (or updates) the starter for `stage` in the trainee's n8n; one line per workflow, naming it, its
 * id, "unpublished" and what to do. `connect` is called only once the starter is allowed and its stage
 * valid (a refusal needs no n8n and no key). Throws StarterRefused (nothing changed), or N8nError.
 */
export async function addStarter(
  connect: () => PublicApi,
  stage: string,
  starters: Starters,
): Promise<string[]> {
  if (starters === 'off') throw startersOff();
  const wanted = starterWorkflows(starterStage(stage));
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
