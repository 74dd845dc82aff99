/**
 * The guide's workflows as n8n export files, for what cannot import TypeScript: docker/workflows/ holds the
 * whole response and rollback workflows (`make solution` and LAB_MODE=demo publish them, a trainer's
 * `n8n import:workflow` takes them), docker/workflows/stages/ the response workflow as it stands after
 * each stage before the last (test/e2e/guide.sh, the editor screenshots). generate-cli.ts writes them; a
 * test holds them equal to this.
 */
import { STAGE_NAMES, type StageName } from '../../stages/stages.js';
import { exportText, type N8nExport } from '../export.js';
import { guideResponseUpTo, guideRollback } from './state.js';

/** The ids of the whole workflows' files: importing them again updates the same workflows. */
export const RESPONSE_ID = 'SuspLoginResp001';
export const ROLLBACK_ID = 'SuspLoginRollbk1';

/** The folder of the partial workflows, inside docker/workflows/. */
export const STAGES_DIR = 'stages';

/** The file of the response workflow after `stage`: stage-05-decide.json. */
export function stageFile(stage: StageName): string {
  return `stage-${String(STAGE_NAMES.indexOf(stage) + 1).padStart(2, '0')}-${stage}.json`;
}

/** The stages whose partial has a file of its own: all but the last, whose workflows are the whole. */
export const PARTIAL_STAGES: readonly StageName[] = STAGE_NAMES.slice(0, -1);

const withId = (id: string) => (workflow: N8nExport) => exportText({ ...workflow, id });

/** docker/workflows/'s files by their path in it. */
export const GUIDE_FILES: Record<string, () => string> = {
  'suspicious-login-response.json': () => withId(RESPONSE_ID)(guideResponseUpTo('rollback')),
  'suspicious-login-rollback.json': () => withId(ROLLBACK_ID)(guideRollback()),
  ...Object.fromEntries(
    PARTIAL_STAGES.map((s) => [`${STAGES_DIR}/${stageFile(s)}`, () => exportText(guideResponseUpTo(s))]),
  ),
};
