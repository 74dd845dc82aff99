/** The committed n8n workflow files and what each must contain (the generator writes them, a test compares). */
import { join } from 'node:path';
import { exportText } from './build.js';
import { WORKFLOW_DIR } from './js-source.js';
import { responseWorkflow } from './response.js';
import { rollbackWorkflow } from './rollback.js';

export const WORKFLOW_FILES: Record<string, () => string> = {
  'suspicious-login-response.json': () => exportText(responseWorkflow()),
  'suspicious-login-rollback.json': () => exportText(rollbackWorkflow()),
};

/** docker/workflows/ */
export const WORKFLOW_OUT_DIR = join(WORKFLOW_DIR, '..', '..', 'docker', 'workflows');
