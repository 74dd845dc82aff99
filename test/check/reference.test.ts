/**
 * The reference workflow passes every stage; the output has one line per expectation; the JSON results
 * follow the schema the console reads; a stage checks nothing after it; the names the seed leaves open
 * are judged through a mapping, never failed for lack of one. Real HTTP on loopback throughout.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckReportSchema } from '../../app/acceptance/check/report-schema.js';
import { runCheck } from '../../app/acceptance/check/run-check.js';
import { scenariosFor, stagesUpTo } from '../../app/acceptance/check/scenarios.js';
import { startLocalMockApi } from '../../app/acceptance/mock-api-server.js';
import { REFERENCE_NODES } from '../../app/acceptance/reference-workflow.js';
import { startReferenceTarget } from '../../app/acceptance/targets.js';
import { spawnNode } from '../helpers/service-process.js';
import { checkOptions, checkReference, hintsOf, TEST_TIMING } from './check-helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'check-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('check on the reference workflow', () => {
  it('passes every stage, one line per expectation, and writes results the console can parse', async () => {
    const lines: string[] = [];
    const [options, output, hooks] = checkReference('all', undefined, lines);
    options.reportPath = join(dir, 'reports', 'check-last.json');
    const report = await runCheck(options, output, hooks);

    expect(report.stages.map((s) => [s.stage, s.status])).toEqual(stagesUpTo('all').map((s) => [s, 'pass']));
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(CheckReportSchema.parse(JSON.parse(await readFile(options.reportPath, 'utf8')))).toEqual(report);

    const expectationLines = lines
      .join('\n')
      .split('\n')
      .filter((l) => /^(PASS|FAIL|UNJUDGED) +(?!stage )[a-z-]+ +\S/.test(l));
    expect(expectationLines).toHaveLength(report.results.length);
    // Without an n8n API key the Webhook's execution data is not judged, and the output says so.
    const unjudged = report.results.filter((r) => r.status === 'unjudged');
    expect(unjudged.map((r) => [r.stage, r.expectation])).toEqual([
      ['webhook', 'all seven mapped fields appear in the execution data'],
    ]);
    expect(unjudged[0]?.hint).toMatch(/judged from the next stage/);
  }, 60_000);

  it('STAGE=enrich sends only the stimuli of webhook, validate and enrich, and judges nothing after', async () => {
    const report = await runCheck(...checkReference('enrich'));
    expect(report.stages.map((s) => s.stage)).toEqual(['webhook', 'validate', 'enrich']);
    expect(new Set(report.results.map((r) => r.stage))).toEqual(new Set(['webhook', 'validate', 'enrich']));
    expect(report.results.some((r) => /approv/.test(r.stimulus))).toBe(false);
    expect(scenariosFor(['webhook', 'validate', 'enrich']).length).toBe(10);
  }, 60_000);

  it('--only judges the one stage and sends only its stimuli', async () => {
    const [options, output, hooks] = checkReference('block');
    const report = await runCheck({ ...options, only: true }, output, hooks);
    expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['block', 'pass']]);
    expect(new Set(report.results.map((r) => r.stimulus))).toEqual(
      new Set(['alert with confidence 92; the approver approves']),
    );
  }, 60_000);
});

describe('names the seed leaves open', () => {
  /** A trainee's own case fields: the outcome under `outcome.action`, the verification as `checked_ok`. */
  const ownNames = {
    response: {
      buildRecord: (...args: Parameters<typeof REFERENCE_NODES.buildRecord>) => {
        const { final_action, verification, ...rest } = REFERENCE_NODES.buildRecord(...args);
        const checked =
          typeof verification === 'object' && verification !== null && 'blocked' in verification;
        return {
          ...rest,
          outcome: { action: final_action },
          checked_ok: checked ? verification.blocked : false,
        };
      },
    },
  };
  const hooks = {
    timing: TEST_TIMING,
    startReference: (options: Parameters<typeof startReferenceTarget>[0]) =>
      startReferenceTarget({ ...options, variant: ownNames }),
  };
  const quiet = { out: () => {}, err: () => {} };

  it('without a mapping, the final action and verification are unjudged (not failed), and say how to map', async () => {
    const report = await runCheck(checkOptions('record', { reportPath: join(dir, 'a.json') }), quiet, hooks);
    expect(report.passed).toBe(true);
    const open = report.results.filter((r) => r.stage === 'record' && r.status === 'unjudged');
    expect(open.map((r) => r.expectation).sort()).toEqual([
      'a rejected run is recorded: a case of the event whose final action is none',
      'a timed-out run is recorded: a case of the event whose final action is none',
      'the case shows the final action (blocked)',
      'the case shows the verification result',
    ]);
    expect(open[0]?.hint).toMatch(/the seed leaves this name open: give yours in a mapping file \(--mapping/);
  }, 60_000);

  it('with a mapping, the same fields are judged and pass; a wrong mapped value fails', async () => {
    const mapping = join(dir, 'mapping.json');
    await writeFile(
      mapping,
      JSON.stringify({ case: { final_action: 'outcome.action', verification: 'checked_ok' } }),
    );
    const report = await runCheck(
      checkOptions('record', { reportPath: join(dir, 'b.json'), mappingPath: mapping }),
      quiet,
      hooks,
    );
    expect(report.results.filter((r) => r.status !== 'pass')).toEqual([
      expect.objectContaining({ stage: 'webhook', status: 'unjudged' }),
    ]);

    await writeFile(
      mapping,
      JSON.stringify({ case: { final_action: 'outcome.action', blocked: 'contained' } }),
    );
    const wrong = await runCheck(
      checkOptions('record', { reportPath: join(dir, 'c.json'), mappingPath: mapping }),
      quiet,
      hooks,
    );
    expect(wrong.results.filter((r) => r.status === 'fail').map((r) => r.expectation)).toEqual([
      'the case shows the final action (blocked)',
    ]);
  }, 60_000);
});

describe('the webhook stage fails when the alert does not arrive', () => {
  it('a wrong path: the webhook line fails with its hint, and later stages say the alert never arrived', async () => {
    const api = await startLocalMockApi();
    const host = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 1 });
    try {
      // The reference host speaks n8n's URLs; driven as "n8n" with a path the workflow does not have.
      const options = checkOptions('validate', {
        target: 'n8n',
        api: { kind: 'http', url: api.url },
        n8nUrl: host.workflowUrl,
        webhookPath: 'not-my-path',
        reportPath: join(dir, 'webhook.json'),
      });
      const report = await runCheck(options, { out: () => {}, err: () => {} }, { timing: TEST_TIMING });
      expect(report.stages.map((s) => [s.stage, s.status])).toEqual([
        ['webhook', 'fail'],
        ['validate', 'fail'],
      ]);
      expect(hintsOf(report, 'webhook')[0]).toMatch(
        /^POST \/webhook\/not-my-path answered 404: give the Webhook node HTTP method POST and this path/,
      );
      expect(new Set(hintsOf(report, 'validate').map((h) => h.replace(/\(.*\)/, '')))).toEqual(
        new Set(['the alert never reached the workflow: POST /webhook/not-my-path answered 404 ']),
      );
    } finally {
      await host.close();
      await api.close();
    }
  }, 60_000);
});

describe('the check subcommand', () => {
  it('exits 0 when the stages pass, 2 on a usage error with the usage', async () => {
    const report = join(dir, 'cli.json');
    const ok = spawnNode('app/acceptance/cli.ts', [
      'check',
      '--stage',
      'webhook',
      '--target',
      'reference',
      '--report',
      report,
    ]);
    expect((await ok.exited).code).toBe(0);
    expect(ok.stdout()).toMatch(/^PASS +webhook +valid alert, confidence 79: the webhook accepts the alert/m);
    expect(ok.stdout()).toMatch(/^PASS {2}stage webhook: 1 passed, 0 failed, 1 unjudged$/m);

    const bad = spawnNode('app/acceptance/cli.ts', ['check', '--stage', 'deploy', '--target', 'reference']);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/^check: --stage: --stage must be one of webhook/);
  }, 30_000);
});
