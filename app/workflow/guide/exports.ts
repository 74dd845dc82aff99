/**
 * The guide's workflows as n8n export files (docker/workflows/guide/): the whole response and rollback
 * workflows, and the response workflow as it stands after each stage before the last. They are for what
 * cannot import TypeScript (test/e2e/guide.sh imports them into the pinned n8n; the editor screenshots;
 * a trainer's `n8n import:workflow`). generate-cli.ts writes them; a test holds them equal to this.
 */
import {
  GUIDE_STAGES,
  type GuideExport,
  type GuideStage,
  guideResponseUpTo,
  guideRollback,
} from './state.js';

/** The file of the response workflow after `stage`: stage-05-decide.json. */
export function stageFile(stage: GuideStage): string {
  return `stage-${String(GUIDE_STAGES.indexOf(stage) + 1).padStart(2, '0')}-${stage}.json`;
}

/** The stages whose partial has a file of its own: all but the last, whose workflows are the whole. */
export const PARTIAL_STAGES: readonly GuideStage[] = GUIDE_STAGES.slice(0, -1);

const text = (workflow: GuideExport) => `${JSON.stringify(workflow, null, 2)}\n`;

export const GUIDE_FILES: Record<string, () => string> = {
  'suspicious-login-response.json': () => text(guideResponseUpTo('rollback')),
  'suspicious-login-rollback.json': () => text(guideRollback()),
  ...Object.fromEntries(PARTIAL_STAGES.map((s) => [stageFile(s), () => text(guideResponseUpTo(s))])),
};
