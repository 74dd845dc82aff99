/**
 * Each FAIL and UNJUDGED line points at its run, the wait ends with the run, and a run that has not ended
 * when its phase does is UNJUDGED, never FAIL: on the reference target (real HTTP on loopback, its runs
 * read as n8n's executions are), and the rules of the node to blame on runs as n8n shows them.
 */
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { formatResults, runCheck, runLine } from '../../app/check/run-check.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { historyLineOf } from '../../app/check-report/history.js';
import {
  blame,
  nothingRan,
  notRunWithin,
  type PhaseEnd,
  pointAt,
  stageOf,
} from '../../app/judges/run-pointer.js';
import type { RunLookup, RunNode, RunSource, RunView } from '../../app/runs/run.js';
import { startReferenceTarget } from '../../app/targets/targets.js';
import { checkReference, failedStages, TEST_TIMING } from './check-helpers.js';

const node = (name: string, extra: Partial<RunNode> = {}): RunNode => ({
  id: null,
  name,
  type: null,
  error: null,
  output: [],
  url: null,
  ...extra,
});
const view = (nodes: RunNode[], status = 'success'): RunView => ({
  id: '7',
  url: 'http://editor/workflow/W/executions/7',
  status,
  nodes,
  lastNode: nodes.at(-1)?.name ?? null,
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The mock API behind a proxy that holds each identity request (what Enrich asks) `ms` longer. */
async function slowIdentity(
  mockApiUrl: string,
  ms: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(Buffer.from(chunk));
      if (req.url?.startsWith('/identity/')) await sleep(ms);
      if (res.destroyed) return; // the run was stopped meanwhile
      const answer = await fetch(`${mockApiUrl}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        ...(chunks.length > 0
          ? { body: Buffer.concat(chunks), headers: { 'content-type': 'application/json' } }
          : {}),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy: no TCP address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The reference target with an Enrich that takes `ms` longer (its identity service is slow). */
const slowEnrich =
  (ms: number): typeof startReferenceTarget =>
  async (options) => {
    const proxy = await slowIdentity(options.mockApiUrl, ms);
    const target = await startReferenceTarget({ ...options, mockApiUrl: proxy.url });
    return {
      ...target,
      close: async () => {
        await target.close();
        await proxy.close();
      },
    };
  };

describe('the node to blame', () => {
  it('the node that errored, not a Stop and Error that stopped the run on purpose', () => {
    const run = view([
      node('Webhook'),
      node('Lookup user', { error: 'connect ECONNREFUSED', url: '={{ $json.api }}/identity/x' }),
      node('Stop', { type: 'n8n-nodes-base.stopAndError', error: 'stopped' }),
    ]);
    expect(blame(run, 'enrich', undefined)).toEqual({
      node: 'Lookup user',
      why: 'Lookup user errored: connect ECONNREFUSED',
    });
    const stopped = view([
      node('Webhook'),
      node('Stop', { type: 'n8n-nodes-base.stopAndError', error: 'x' }),
    ]);
    expect(blame(stopped, 'webhook', undefined).node).not.toBe('Stop');
  });

  it('the last node that ran when the stage needed a later one', () => {
    const run = view([node('Webhook'), node('Settings'), node('Validate'), node('Valid?')]);
    expect(blame(run, 'enrich', undefined)).toEqual({ node: 'Valid?', why: 'nothing after Valid? ran' });
    expect(blame(view(run.nodes, 'waiting'), 'decide', undefined).why).toBe(
      'nothing after Valid? ran (the run is waiting there)',
    );
  });

  it('the first node whose output lacks the field the Webhook stage needed', () => {
    const run = view([
      node('Webhook', { output: [{ body: { user: 'u' } }] }),
      node('Validate', { output: [{ user: 'u', country: 'NL' }] }),
    ]);
    const execution = { kind: 'found' as const, executionId: '7', missing: ['country'] };
    expect(blame(run, 'webhook', execution)).toEqual({
      node: 'Webhook',
      why: "Webhook's output has no country",
    });
  });

  it("the stage's own node when it ran; no node when none can be named", () => {
    const run = view([node('Webhook'), node('Validate'), node('Enrich'), node('Case lookup')]);
    expect(blame(run, 'enrich', undefined).node).toBe('Enrich');
    const unknown = view([node('My hook'), node('Step 2')]);
    expect(blame(unknown, 'decide', undefined)).toEqual({
      node: null,
      why: 'the run ended (success) after Step 2',
    });
  });

  it('a trainee’s own names: the stage by what the node calls', () => {
    expect(stageOf(node('Who is it', { url: '={{ $json.api }}/identity/{{ $json.user }}' }))).toBe('enrich');
    expect(stageOf(node('Hold', { type: 'n8n-nodes-base.wait' }))).toBe('approve');
    expect(stageOf(node('Step 2'))).toBeNull();
  });
});

describe('a check points at its runs (reference target)', () => {
  it('a half-built workflow: each FAIL names its run and the last node that ran; the line prints it', async () => {
    const lines: string[] = [];
    const report = await runCheck(
      ...checkReference('case-lookup', REFERENCE_VARIANTS['built-up-to-enrich'].reference, lines),
    );
    expect(failedStages(report)).toEqual(['case-lookup']);
    const failed = report.results.filter((r) => r.status === 'fail');
    expect(failed.length).toBeGreaterThan(0);
    // Identity ok? has nothing on its true output: the run ends there, successfully, as on n8n.
    for (const result of failed) {
      expect(result.run).toMatchObject({
        status: 'success',
        node: 'Identity ok?',
        why: 'nothing after Identity ok? ran',
      });
      expect(result.run?.execution_id).toMatch(/^\d+$/);
    }
    expect(lines.join('\n')).toMatch(
      /\n {2,}run: execution \d+ \(success\) node: Identity ok\?: nothing after Identity ok\? ran\n/,
    );
    expect(report.results.filter((r) => r.status === 'pass').every((r) => r.run === null)).toBe(true);
    // The class board's line: the first failure's node and run (the reference has no editor: no address).
    expect(historyLineOf(report)).toMatchObject({ first_failed: 'case-lookup', first_node: 'Identity ok?' });
  }, 60_000);

  it('a FAIL as fast as a PASS: the wait ends when the run has ended, not at the phase limit', async () => {
    const [options, output, hooks] = checkReference(
      'enrich',
      REFERENCE_VARIANTS['enrich-wrong-user'].reference,
    );
    const began = performance.now();
    const report = await runCheck({ ...options, only: true }, output, {
      ...hooks,
      timing: { ...TEST_TIMING, phaseTimeoutMs: 20_000 },
    });
    expect(failedStages(report)).toEqual(['enrich']);
    // Two stimuli, each failing: a wait to the phase limit would take 40 s.
    expect(performance.now() - began).toBeLessThan(6_000);
  }, 60_000);

  it('a run still going when its phase ends is UNJUDGED (the host is busy), never FAIL', async () => {
    const [options, output] = checkReference('enrich');
    const report = await runCheck({ ...options, only: true }, output, {
      timing: { ...TEST_TIMING, phaseTimeoutMs: 1_000 },
      startReference: slowEnrich(2_500),
    });
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    const unjudged = report.results.filter((r) => r.status === 'unjudged');
    expect(unjudged.length).toBeGreaterThan(0);
    for (const result of unjudged) {
      expect(result.hint).toBe(notRunWithin(1));
      expect(result.run).toMatchObject({
        status: 'running',
        why: expect.stringMatching(/^the run was still running/),
      });
      expect(result.run?.execution_id).not.toBeNull();
    }
    expect(report.stages).toEqual([expect.objectContaining({ stage: 'enrich', status: 'pass' })]);
    expect(formatResults(report)).toMatch(/UNJUDGED {2}enrich/);
  }, 60_000);

  it('a run that ended only after its phase (found ended when looked up) is UNJUDGED, not FAIL', async () => {
    // Enrich takes 2.5 s, the phase 1 s: the state judged is the one at 1 s. The look-up after the wait is
    // held up until the run has ended, as a busy n8n answers late: the run is then "success", yet the
    // state judged was taken before it had done anything.
    const heldUp =
      (from: number) =>
      (runs: RunSource): RunSource => ({
        ...runs,
        find: async (query) => {
          if (Date.now() - query.sentAt.getTime() > from) await sleep(2_500);
          return runs.find(query);
        },
      });
    const [options, output] = checkReference('enrich');
    const report = await runCheck({ ...options, only: true }, output, {
      timing: { ...TEST_TIMING, phaseTimeoutMs: 1_000 },
      startReference: async (o) => {
        const target = await slowEnrich(2_500)(o);
        return { ...target, ...(target.runs ? { runs: heldUp(900)(target.runs) } : {}) };
      },
    });
    expect(report.results.filter((r) => r.status === 'fail')).toEqual([]);
    const unjudged = report.results.filter((r) => r.status === 'unjudged');
    expect(unjudged.length).toBeGreaterThan(0);
    for (const result of unjudged) {
      expect(result.hint).toBe(notRunWithin(1));
      expect(result.run?.status).toMatch(/^(success|error)$/);
      expect(result.run?.why).toBe(
        `the run was still running when the wait for it ran out; it ended (${result.run?.status}) only after`,
      );
    }
  }, 60_000);

  it('a run that ended within its phase keeps its FAIL, however late it is looked up', async () => {
    const [options, output] = checkReference('enrich');
    const report = await runCheck({ ...options, only: true }, output, {
      timing: TEST_TIMING,
      startReference: async (o) => {
        const target = await startReferenceTarget({
          ...o,
          variant: REFERENCE_VARIANTS['enrich-wrong-user'].reference,
        });
        const runs = target.runs;
        if (runs === undefined) return target;
        const late = async (query: Parameters<RunSource['find']>[0]) => {
          await sleep(300);
          return runs.find(query);
        };
        return { ...target, runs: { ...runs, find: late } };
      },
    });
    expect(failedStages(report)).toEqual(['enrich']);
    expect(report.results.filter((r) => r.status === 'unjudged')).toEqual([]);
  }, 60_000);

  it("the link opens the node to blame in that run (its id after the execution's); the run's when none", () => {
    const failing = { status: 'fail' as const, hint: 'no identity lookup' };
    const expectation = { stage: 'enrich' as const, text: 'x', judge: () => failing };
    const pointer = (run: RunView) =>
      pointAt(
        expectation,
        failing,
        { kind: 'looked', lookup: { kind: 'found', run }, phaseSeconds: 20, atPhaseEnd: null },
        { webhookPath: 'p', execution: undefined },
      ).run;
    const halfBuilt = view([node('Webhook', { id: 'n-1' }), node('Valid?', { id: 'n 2/3' })]);
    expect(pointer(halfBuilt)).toMatchObject({
      node: 'Valid?',
      url: 'http://editor/workflow/W/executions/7/n%202%2F3',
    });
    // A node without an id (a target that gives none) or no node to blame: the run itself.
    expect(pointer(view([node('Webhook'), node('Valid?')]))?.url).toBe(
      'http://editor/workflow/W/executions/7',
    );
    expect(pointer(view([node('My hook', { id: 'a' }), node('Step 2', { id: 'b' })]))).toMatchObject({
      node: null,
      url: 'http://editor/workflow/W/executions/7',
    });
  });

  it('the run as the wait left it decides: unfinished then is UNJUDGED, whatever it became', () => {
    const failing = { status: 'fail' as const, hint: 'no identity lookup' };
    const expectation = { stage: 'enrich' as const, text: 'x', judge: () => failing };
    const ended = { kind: 'found' as const, run: view([node('Webhook'), node('Enrich')]) };
    const verdict = (atPhaseEnd: PhaseEnd | null, lookup: RunLookup = ended) =>
      pointAt(
        expectation,
        failing,
        { kind: 'looked', lookup, phaseSeconds: 20, atPhaseEnd },
        {
          webhookPath: 'p',
          execution: undefined,
        },
      ).outcome.status;
    const table: [PhaseEnd | null, string][] = [
      [null, 'fail'], // the wait ended on the run's end or a settled verdict: the state is its last word
      [{ status: 'success', decided: false }, 'fail'],
      [{ status: 'error', decided: true }, 'fail'],
      [{ status: 'running', decided: false }, 'unjudged'],
      [{ status: 'new', decided: false }, 'unjudged'],
      [{ status: null, decided: false }, 'unjudged'], // not found by then: arrived late
      [{ status: 'waiting', decided: true }, 'unjudged'], // resumed, not yet going on
      [{ status: 'waiting', decided: false }, 'fail'], // waiting with no decision given: the workflow's
    ];
    expect(table.map(([end]) => verdict(end))).toEqual(table.map(([, want]) => want));
    // Still running when looked up: UNJUDGED whatever the wait saw.
    const running = { kind: 'found' as const, run: view([node('Webhook')], 'running') };
    expect(verdict(null, running)).toBe('unjudged');
  });

  it('the run line: the link, the status, the node and why; what is unknown is left out', () => {
    expect(
      runLine({
        execution_id: '21',
        url: 'http://localhost:8080/workflow/W/executions/21',
        status: 'success',
        node: 'Valid?',
        why: 'nothing after Valid? ran',
      }),
    ).toBe(
      'run: http://localhost:8080/workflow/W/executions/21 (success) node: Valid?: nothing after Valid? ran',
    );
    expect(
      runLine({ execution_id: null, url: null, status: null, node: null, why: nothingRan('my-path') }),
    ).toBe('run: nothing ran: is the workflow published, is the Webhook path `my-path`?');
  });

  it('says why when nothing ran', () => {
    expect(nothingRan('suspicious-login')).toBe(
      'nothing ran: is the workflow published, is the Webhook path `suspicious-login`?',
    );
  });
});
