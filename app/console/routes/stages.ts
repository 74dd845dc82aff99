/** GET /api/stages: each stage's brief, and whether this lab's page offers starters. */
import { Hono } from 'hono';
import { STARTER_STAGES, starterName } from '../../n8n/starter.js';
import { checkWords } from '../../stages/briefs.js';
import { APPROVAL_THRESHOLD } from '../../workflow/constants.js';
import type { StagesView } from '../check-view.js';
import type { ConsoleDeps } from './deps.js';
import { STARTER_NEEDS_KEY } from './starter.js';

type StageDeps = Pick<ConsoleDeps, 'starters' | 'n8nApiKey'>;

/** GET /api/stages: each stage's brief, and whether this lab's page offers starters (and why not). */
export function stageRoutes({ starters = 'on', n8nApiKey }: StageDeps): Hono {
  const view: StagesView = {
    briefs: checkWords(APPROVAL_THRESHOLD).briefs,
    starter: {
      shown: starters === 'on',
      unavailable: n8nApiKey === undefined ? STARTER_NEEDS_KEY : null,
      stages: STARTER_STAGES.map((stage) => ({ stage, name: starterName(stage) })),
    },
  };
  return new Hono().get('/', (c) => c.json(view));
}
