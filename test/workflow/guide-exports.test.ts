/**
 * docker/workflows/ (written by app/workflow/guide/generate-cli.ts) holds what the guide's workflow builds
 * now, no file more or less: the whole workflows and, in stages/, the response workflow after each stage
 * before the last. Each is an n8n workflow the pinned n8n imports (node types and versions of its
 * catalogue, unique names, connections to nodes that exist, JavaScript and expressions that compile) and
 * calls only the mock API's workflow routes at `$env.MOCK_API_URL`, with no credentials.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESPONSE_WEBHOOK_PATH, ROLLBACK_WEBHOOK_PATH } from '../../app/workflow/constants.js';
import { GUIDE_FILES, STAGES_DIR } from '../../app/workflow/guide/exports.js';
import {
  checkEnv,
  checkHttpRoutes,
  checkJavaScript,
  checkNoCredentials,
  checkNodeTypes,
  checkWebhook,
  checkWellFormed,
  parseExport,
  readNodeTypes,
  WORKFLOW_DIR,
} from './checks.js';

const fixture = readNodeTypes();

/** The .json files of docker/workflows/ and its stages/, by their path in it. */
function presentFiles(): string[] {
  const json = (dir: string) => readdirSync(join(WORKFLOW_DIR, dir)).filter((f) => f.endsWith('.json'));
  return [...json('.'), ...json(STAGES_DIR).map((f) => `${STAGES_DIR}/${f}`)].sort();
}

/** The files that differ from what the generator writes, or are missing, or are extra. */
function staleFiles(present: readonly string[], read: (file: string) => string): string[] {
  const wanted = Object.keys(GUIDE_FILES).sort();
  return [
    ...wanted.filter((f) => !present.includes(f)).map((f) => `${f} is missing`),
    ...present.filter((f) => !wanted.includes(f)).map((f) => `${f} is no guide file`),
    ...wanted
      .filter((f) => present.includes(f) && read(f) !== GUIDE_FILES[f]?.())
      .map((f) => `${f} is stale`),
  ];
}

const read = (file: string) => readFileSync(join(WORKFLOW_DIR, file), 'utf8');

describe('docker/workflows/', () => {
  it('holds what app/workflow/guide/generate-cli.ts writes (npm run generate)', () => {
    expect(staleFiles(presentFiles(), read)).toEqual([]);
  });

  it('control: a file edited by hand, a file left over and a file missing are found', () => {
    const edited = (file: string) =>
      file === `${STAGES_DIR}/stage-05-decide.json` ? read(file).replace('"gte"', '"gt"') : read(file);
    const present = [...presentFiles().filter((f) => !f.endsWith('rollback.json')), 'guide/old.json'];
    expect(staleFiles(present, edited)).toEqual([
      'suspicious-login-rollback.json is missing',
      'guide/old.json is no guide file',
      `${STAGES_DIR}/stage-05-decide.json is stale`,
    ]);
  });

  it.each(Object.keys(GUIDE_FILES).map((f) => [f]))('%s is a workflow the pinned n8n imports', (file) => {
    const wf = parseExport(read(file));
    const path = file.includes('rollback') ? ROLLBACK_WEBHOOK_PATH : RESPONSE_WEBHOOK_PATH;
    expect([
      ...checkNodeTypes(wf, fixture),
      ...checkWellFormed(wf),
      ...checkJavaScript(wf),
      ...checkHttpRoutes(wf),
      ...checkEnv(wf),
      ...checkNoCredentials(wf),
      ...checkWebhook(wf, path),
    ]).toEqual([]);
  });
});
