/**
 * The twins test's comparison (test/e2e/twins.ts holds the simulator to n8n with it in make e2e-check):
 * what a run makes up anew (times, ids, resume URLs, the scenario's random names) compares the same; what
 * the workflow decided does not. Two simulator runs of the same scenarios, one with a node of its workflow
 * changed, are told apart, on the path of what changed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_NAMES } from '../../app/acceptance/verdict.js';
import { REFERENCE_VARIANTS } from '../../app/check/variants.js';
import { scenariosFor, stagesUpTo } from '../../app/judges/scenarios.js';
import { type LocalMockApi, startLocalMockApi } from '../../app/mock-api-client/local-mock-api.js';
import {
  compareSides,
  expectedNames,
  firstDifference,
  formatLines,
  normaliseState,
  placeholdersOf,
  suffixOf,
  uncompared,
} from './twins-compare.js';
import { collectStates, type Side } from './twins-run.js';

/** A final state of one run, its random names and times as that run made them. */
function stateOf(run: { eventId: string; at: string; resume: string; approver: string; expires?: number }) {
  return {
    case_mode: 'healthy',
    cases: [
      {
        event_id: run.eventId,
        approver: run.approver,
        final_action: 'blocked',
        created_at: run.at,
        revision: 1,
        rollback: { recovery_seconds: run.at.length, requested_at: run.at },
      },
    ],
    notifications: [
      {
        id: `ntf-00000${run.at.length % 10}`,
        event_id: run.eventId,
        accepted_at: run.at,
        resume_url: run.resume,
        message: `Block? answer at ${run.resume}`,
      },
    ],
    blocklist: [
      { ip: '203.0.113.66', event_id: run.eventId, expires_minutes: run.expires ?? 10, created_at: run.at },
    ],
    blocklist_history: [],
    journal: [
      { seq: 1, at: run.at, method: 'POST', path: '/reset', status: 200 },
      { seq: 2, at: run.at, method: 'GET', path: `/cases/${run.eventId}`, status: 404 },
    ],
    now: run.at,
  };
}

const n8nRun = {
  eventId: 'evt-chk-positive-92-0a1b2c3d',
  approver: 'approver-0a1b2c3d',
  at: '2026-11-28T10:00:00.000Z',
  resume: 'http://127.0.0.1:5678/webhook-waiting/41?signature=aa11',
};
const simulatorRun = {
  eventId: 'evt-chk-positive-92-99ffee00',
  approver: 'approver-99ffee00',
  at: '2026-11-28T10:07:13.5Z',
  resume: 'http://127.0.0.1:40123/webhook-waiting/3?signature=bb22',
};
const normal = (run: typeof n8nRun & { expires?: number }) =>
  normaliseState(
    stateOf(run),
    placeholdersOf({ eventId: run.eventId, approver: run.approver, suffix: suffixOf(run.eventId) }),
  );

describe('normaliseState and firstDifference', () => {
  it('equal states compare the same, whatever times, ids, resume URLs and random names each run made', () => {
    expect(firstDifference(normal(n8nRun), normal(simulatorRun))).toBeNull();
    const lines = compareSides(
      new Map([['check positive-92', normal(n8nRun)]]),
      new Map([['check positive-92', normal(simulatorRun)]]),
    );
    expect(formatLines(lines, ['n8n', 'simulator'])).toEqual([
      'check positive-92  same',
      '1 scenario(s): 1 the same, 0 different (n8n vs simulator)',
    ]);
  });

  it('a value the workflow wrote differently is the first difference, with its path and both values', () => {
    const lines = compareSides(
      new Map([['check positive-92', normal(n8nRun)]]),
      new Map([['check positive-92', normal({ ...simulatorRun, expires: 60 })]]),
    );
    expect(lines[0]?.difference).toEqual({ path: 'blocklist[0].expires_minutes', left: 10, right: 60 });
    expect(formatLines(lines, ['n8n', 'simulator'])[0]).toBe(
      'check positive-92  DIFFERENT  blocklist[0].expires_minutes: n8n 10 vs simulator 60',
    );
  });

  it('a request only one side made, and a scenario only one side ran, are differences', () => {
    const more = stateOf(simulatorRun);
    more.journal.push({ seq: 3, at: simulatorRun.at, method: 'POST', path: '/blocklist', status: 201 });
    const simulatorStates = new Map([
      [
        'check positive-92',
        normaliseState(
          more,
          placeholdersOf({ eventId: simulatorRun.eventId, approver: simulatorRun.approver }),
        ),
      ],
      ['matrix positive', normal(simulatorRun)],
    ]);
    const lines = compareSides(new Map([['check positive-92', normal(n8nRun)]]), simulatorStates);
    expect(lines.map((l) => l.difference?.path)).toEqual(['journal[2]', '(the scenario)']);
    expect(lines[0]?.difference?.right).toBe('POST /blocklist 201');
  });
});

describe('uncompared: twins that compared nothing, or fewer than expected, fail', () => {
  const expected = expectedNames(
    scenariosFor(stagesUpTo('all')).map((s) => s.id),
    CASE_NAMES,
  );
  const same = (names: readonly string[]) =>
    compareSides(new Map(names.map((n) => [n, 1])), new Map(names.map((n) => [n, 1])));

  it('expects every scenario of the checker’s all and every case of the matrix', () => {
    expect(expected).toContain('check positive-92');
    expect(expected).toContain('matrix positive');
    expect(expected.length).toBe(scenariosFor(stagesUpTo('all')).length + CASE_NAMES.length);
    expect(new Set(expected).size).toBe(expected.length);
  });

  it('every expected name compared: nothing missing', () => {
    expect(uncompared(same(expected), expected)).toEqual([]);
  });

  it('nothing compared: every expected name missing', () => {
    expect(uncompared([], expected)).toEqual(expected);
  });

  it('one case fewer: that case missing; a side that ran it alone is a difference, not a miss', () => {
    const fewer = expected.filter((n) => n !== 'matrix positive');
    expect(uncompared(same(fewer), expected)).toEqual(['matrix positive']);
    const oneSide = compareSides(new Map([['matrix positive', 1]]), new Map());
    expect(uncompared([...same(fewer), ...oneSide], expected)).toEqual([]);
    expect(oneSide[0]?.difference?.path).toBe('(the scenario)');
  });

  it('an expectation that names nothing is refused', () => {
    expect(() => uncompared([], [])).toThrow(/no scenario is expected/);
  });
});

describe('two simulator runs of the same scenarios', () => {
  const timing = { pollMs: 25, settleMs: 200, phaseTimeoutMs: 2_000, approvalLatenessMs: 500 };
  let api: LocalMockApi;
  let dir: string;
  beforeAll(async () => {
    api = await startLocalMockApi();
    dir = mkdtempSync(join(tmpdir(), 'twins-test-'));
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const states = async (side: Side, name: string) =>
    (
      await collectStates(side, {
        mockApiUrl: api.url,
        approvalTimeoutSeconds: 1,
        timing,
        // The checker's approved alert (stage block alone) and the matrix's positive case.
        check: {
          stage: 'block',
          only: true,
          reportPath: join(dir, `${name}.json`),
          output: { out: () => {}, err: () => {} },
        },
        cases: ['positive'],
      })
    ).states;

  it('compare the same when both run the guide’s workflow, and differ where one node of one is changed', async () => {
    const first = await states({ kind: 'simulator' }, 'first');
    const second = await states({ kind: 'simulator' }, 'second');
    expect([...first.keys()]).toEqual(['check positive-92', 'matrix positive']);
    expect(compareSides(first, second).map((l) => l.difference)).toEqual([null, null]);

    // One node: Block sends expires_minutes 60.
    const changed = await states(
      { kind: 'simulator', variant: REFERENCE_VARIANTS['block-for-an-hour'].reference },
      'changed',
    );
    const lines = compareSides(first, changed);
    expect(lines.map((l) => [l.scenario, l.difference?.path])).toEqual([
      ['check positive-92', 'blocklist[0].expires_minutes'],
      ['matrix positive', 'blocklist[0].expires_minutes'],
    ]);
    expect(lines.map((l) => [l.difference?.left, l.difference?.right])).toEqual([
      [10, 60],
      [10, 60],
    ]);
  }, 60_000);
});
