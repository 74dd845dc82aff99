/**
 * The reference workflow passes every stage; the output has one line per expectation; the JSON results
 * follow the schema the console reads; a stage checks nothing after it; the names the seed leaves open
 * are judged through a mapping, never failed for lack of one. Real HTTP on loopback throughout.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notListeningMessage } from '../../app/check/drive.js';
import { runCheck } from '../../app/check/run-check.js';
import { CheckReportSchema } from '../../app/check-report/report.js';
import { scenariosFor, stagesUpTo } from '../../app/judges/scenarios.js';
import { startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import { startReferenceTarget } from '../../app/targets/targets.js';
import type { GuideNode } from '../../app/workflow/guide/kinds.js';
import { spawnNode, startService } from '../helpers/service-process.js';
import { checkOptions, checkReference, TEST_TIMING } from './check-helpers.js';

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
      'Build record': (node: GuideNode): GuideNode => ({
        ...node,
        parameters: {
          ...node.parameters,
          jsCode: String(node.parameters.jsCode).replace(
            'return [{ json: { record: record } }];',
            `const { final_action, verification, ...rest } = record;
const checked_ok = typeof verification === 'object' && verification !== null ? verification.blocked : false;
return [{ json: { record: { ...rest, outcome: { action: final_action }, checked_ok: checked_ok } } }];`,
          ),
        },
      }),
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
    expect(open[0]?.hint).toMatch(
      /the exercise leaves this name open: give yours in a mapping file \(--mapping/,
    );
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

describe('nothing listens on a webhook path: one line, not a list of failures', () => {
  it('a wrong alert path: the check stops at once with one line, the report says so', async () => {
    const api = await startLocalMockApi();
    const host = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 1 });
    try {
      // The reference host speaks n8n's URLs; driven as "n8n" with a path the workflow does not have.
      const lines: string[] = [];
      const options = checkOptions('validate', {
        target: 'n8n',
        api: { kind: 'http', url: api.url },
        n8nUrl: host.workflowUrl,
        webhookPath: 'not-my-path',
        reportPath: join(dir, 'webhook.json'),
      });
      const began = performance.now();
      const report = await runCheck(
        options,
        { out: (l) => lines.push(`out ${l}`), err: (l) => lines.push(`err ${l}`) },
        { timing: TEST_TIMING },
      );
      // Retried briefly (n8n answers 404 for about a second after a publish), then stopped: no scenario ran.
      expect(performance.now() - began).toBeLessThan(TEST_TIMING.phaseTimeoutMs + 1500);
      expect(lines.filter((l) => !l.startsWith('out check: stages '))).toEqual([
        `err check: ${notListeningMessage('alert', 'not-my-path')}`,
      ]);
      const line = lines.find((l) => l.startsWith('err check: nothing')) ?? '';
      expect(line).toMatch(
        /publish your alert workflow, its Webhook node set to HTTP method POST and path not-my-path/,
      );
      expect(line).toMatch(/not the editor's test URL \/webhook-test\/not-my-path/);
      expect(line).toMatch(/ARGS="--webhook-path <your path>"/);
      expect(report.passed).toBe(false);
      expect(report.stopped).toEqual({
        stage: 'webhook',
        path: 'not-my-path',
        message: notListeningMessage('alert', 'not-my-path'),
      });
      expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['webhook', 'fail']]);
      expect(report.results).toHaveLength(1);
      expect(CheckReportSchema.parse(JSON.parse(await readFile(options.reportPath, 'utf8')))).toEqual(report);
    } finally {
      await host.close();
      await api.close();
    }
  }, 60_000);

  it('a wrong rollback path: the rollback stage stops with its own line', async () => {
    const api = await startLocalMockApi();
    const host = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 1 });
    try {
      const lines: string[] = [];
      const options = checkOptions('rollback', {
        only: true,
        target: 'n8n',
        api: { kind: 'http', url: api.url },
        n8nUrl: host.workflowUrl,
        rollbackPath: 'undo-mine',
      });
      const report = await runCheck(
        options,
        { out: (l) => lines.push(l), err: (l) => lines.push(l) },
        { timing: TEST_TIMING },
      );
      expect(lines.filter((l) => l.startsWith('check: ') && !l.startsWith('check: stages '))).toEqual([
        `check: ${notListeningMessage('rollback', 'undo-mine')}`,
      ]);
      expect(lines.join('\n')).not.toMatch(/^FAIL/m);
      expect(report.stopped?.stage).toBe('rollback');
      expect(lines.at(-1)).toMatch(/ARGS="--rollback-path <your path>"/);
    } finally {
      await host.close();
      await api.close();
    }
  }, 60_000);

  it('a webhook that answers 404 for a second after a publish is retried, and the check passes', async () => {
    const api = await startLocalMockApi();
    const host = await startReferenceTarget({ mockApiUrl: api.url, approvalTimeoutSeconds: 1 });
    // n8n right after a publish: 404 "not registered" for a moment, then the workflow.
    const publishedAt = performance.now() + 1000;
    const proxy = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (req) => {
        const url = new URL(req.url);
        if (performance.now() < publishedAt)
          return Response.json(
            { code: 404, message: 'The requested webhook is not registered.' },
            { status: 404 },
          );
        return fetch(`${host.workflowUrl}${url.pathname}${url.search}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          body: await req.text(),
        });
      },
    });
    await new Promise((r) => proxy.once('listening', r));
    const address = proxy.address();
    const proxyUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    try {
      const report = await runCheck(
        checkOptions('webhook', { target: 'n8n', api: { kind: 'http', url: api.url }, n8nUrl: proxyUrl }),
        { out: () => {}, err: () => {} },
        { timing: TEST_TIMING },
      );
      expect(report.stopped).toBeNull();
      expect(report.stages.map((s) => [s.stage, s.status])).toEqual([['webhook', 'pass']]);
      expect(report.notes.some((n) => /answered 404; retrying/.test(n))).toBe(true);
    } finally {
      await new Promise((r) => proxy.close(r));
      await host.close();
      await api.close();
    }
  }, 60_000);
});

describe("the stage checker's command", () => {
  it('exits 0 when the stages pass, 2 on a usage error with the usage', async () => {
    const report = join(dir, 'cli.json');
    const ok = spawnNode('app/check/cli.ts', [
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

    const bad = spawnNode('app/check/cli.ts', ['--stage', 'deploy', '--target', 'reference']);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/^check: --stage: --stage must be one of webhook/);
  }, 30_000);

  it('exits 2 with one line when nothing listens on the webhook path; the mock API over its socket', async () => {
    const sockDir = await mkdtemp(join(tmpdir(), 'check-sock-'));
    const socketPath = join(sockDir, 'api.sock');
    const api = await startService(['--port', '0'], { SOCKET_PATH: socketPath });
    // An n8n with nothing published: every webhook answers 404 "not registered".
    const n8n = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        Response.json(
          { code: 404, message: 'The requested webhook "POST suspicious-login" is not registered.' },
          { status: 404 },
        ),
    });
    await new Promise((r) => n8n.once('listening', r));
    const address = n8n.address();
    const n8nUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    try {
      while (!api.stdout().includes('listening on unix:')) await new Promise((r) => setTimeout(r, 25));
      const report = join(sockDir, 'check-last.json');
      const run = spawnNode('app/check/cli.ts', [
        ...['--stage', 'all', '--target', 'n8n', '--api-socket', socketPath],
        ...['--n8n', n8nUrl, '--report', report],
      ]);
      const { code } = await run.exited;
      expect(run.stderr().trim().split('\n')).toEqual([
        `check: ${notListeningMessage('alert', 'suspicious-login')}`,
      ]);
      expect(code).toBe(2);
      expect(run.stdout()).toMatch(/^check: stages webhook\.\.rollback on n8n at .* mock API unix:/);
      expect(run.stdout()).not.toMatch(/FAIL/);
      const written = CheckReportSchema.parse(JSON.parse(await readFile(report, 'utf8')));
      expect(written.stopped?.path).toBe('suspicious-login');
      // The reset went through the socket: the mock API's journal has it.
      const state = await (await fetch(`${api.url}/state`)).json();
      expect(JSON.stringify(state)).toMatch(/"path":"\/reset"/);

      // n8n's name resolving outside N8N_ALLOWED_SUBNET (as the console passes it on): refused in one
      // line, n8n never asked; inside it, the same run reaches n8n as above.
      const byName = n8nUrl.replace('127.0.0.1', 'localhost');
      const checkWith = (subnet: string) =>
        spawnNode(
          'app/check/cli.ts',
          [
            ...['--stage', 'webhook', '--target', 'n8n', '--api-socket', socketPath],
            ...['--n8n', byName, '--report', report],
          ],
          { N8N_ALLOWED_SUBNET: subnet },
        );
      const outside = checkWith('10.0.0.0/8');
      expect((await outside.exited).code).toBe(2);
      expect(outside.stderr().trim().split('\n')).toEqual([
        'check: n8n at 127.0.0.1 (localhost) is outside N8N_ALLOWED_SUBNET 10.0.0.0/8: not connecting',
      ]);
      // Nothing judged: the host failed, not the workflow.
      expect(outside.stdout()).not.toMatch(/FAIL|PASS/);
      const inside = checkWith('127.0.0.0/8');
      expect((await inside.exited).code).toBe(2);
      expect(inside.stderr()).toMatch(
        /nothing listens on POST \/webhook\/suspicious-login \(n8n answered 404\)/,
      );
    } finally {
      await new Promise((r) => n8n.close(r));
      api.child.kill('SIGTERM');
      await api.exited;
      await rm(sockDir, { recursive: true, force: true });
    }
  }, 30_000);
});
