/**
 * A class of six for the class-report tests: stage-check reports built through the checker's own schema
 * (CheckReportSchema) and the tutor's runs files through the tutor's (RunsFileSchema), so a file the checker
 * or the tutor could not write is not accepted here either.
 */

import { type CheckReport, CheckReportSchema, type RunPointer } from '../../app/check-report/report.js';
import type { ClassInput, LabState } from '../../app/classroom/class-input.js';
import { type RunSummary, RunSummarySchema, type RunsFile, RunsFileSchema } from '../../app/runs/file.js';
import { STAGE_NAMES, type StageName } from '../../app/stages/stages.js';

const AT = '2026-11-24T09:41:07.000Z';

/** Every stage up to `requested` passes, except `failing` (with its hint) and `unjudged` (nothing judged). */
export function checkReport(
  requested: StageName | 'all',
  options: {
    failing?: StageName;
    hint?: string;
    unjudged?: StageName;
    stoppedAt?: StageName;
    finishedAt?: string;
    /** The run the failing stage's expectation is about (the checker's run pointer). */
    run?: RunPointer;
  } = {},
): CheckReport {
  const last = requested === 'all' ? STAGE_NAMES.length : STAGE_NAMES.indexOf(requested) + 1;
  const stages = STAGE_NAMES.slice(0, last).filter(
    (s) =>
      options.stoppedAt === undefined || STAGE_NAMES.indexOf(s) <= STAGE_NAMES.indexOf(options.stoppedAt),
  );
  const results = stages.map((stage) => ({
    stage,
    stimulus: 'valid alert, confidence 92',
    expectation: `the ${stage} expectation`,
    status:
      stage === options.failing || stage === options.stoppedAt
        ? 'fail'
        : stage === options.unjudged
          ? 'unjudged'
          : 'pass',
    hint:
      stage === options.failing || stage === options.stoppedAt
        ? (options.hint ?? `fix ${stage}`)
        : stage === options.unjudged
          ? 'no API key'
          : null,
    detail: null,
    at: options.finishedAt ?? AT,
    run: stage === options.failing ? (options.run ?? null) : null,
  }));
  return CheckReportSchema.parse({
    kind: 'stage-check',
    requested,
    target: 'n8n',
    workflow_url: 'http://n8n:5678',
    api: 'unix:/run/mock-api/api.sock',
    started_at: '2026-11-24T09:40:00.000Z',
    finished_at: options.finishedAt ?? AT,
    seconds: 67,
    passed: results.every((r) => r.status !== 'fail') && options.stoppedAt === undefined,
    stages: stages.map((stage) => {
      const own = results.filter((r) => r.stage === stage);
      const count = (s: string) => own.filter((r) => r.status === s).length;
      return {
        stage,
        status: count('fail') > 0 ? 'fail' : 'pass',
        counts: { pass: count('pass'), fail: count('fail'), unjudged: count('unjudged') },
      };
    }),
    results,
    notes: [],
    stopped:
      options.stoppedAt === undefined
        ? null
        : { stage: options.stoppedAt, path: 'suspicious-login', message: options.hint ?? 'nothing listens' },
  });
}

/** The run a failure points at, as the checker writes it: `node` failed in execution `id`. */
export const runAt = (
  node: string,
  id = '7',
  url = `http://127.0.0.1:5601/workflow/wf1/executions/${id}`,
) => ({
  execution_id: id,
  url,
  status: 'error',
  node,
  why: `${node} errored`,
});

export const ENRICH_HINT =
  'GET /identity/lab-admin was never called: after Validate, ask the identity system about the alert’s user';
export const STOPPED_LINE =
  'nothing listens on POST /webhook/suspicious-login (n8n answered 404): publish your alert workflow';

/** A run the tutor explained, as runs.json holds it: started at `startedAt`, ended 4 s later. */
export const tutorRun = (id: string, startedAt: string, over: Partial<RunSummary> = {}): RunSummary =>
  RunSummarySchema.parse({
    execution_id: id,
    url: `http://127.0.0.1:5601/workflow/wf1/executions/${id}/node-enrich`,
    workflow: 'wf1',
    from_editor: false,
    status: 'success',
    started_at: startedAt,
    stopped_at: new Date(Date.parse(startedAt) + 4000).toISOString(),
    kind: 'positive',
    reached: 'decide',
    verdict: 'as-asked',
    unmet_stage: null,
    ...over,
  });

/** The tutor's runs.json: `runs` newest first, `total` every run it explained. */
export const runsFile = (runs: RunSummary[], tries: RunsFile['tries'] = {}, total = runs.length): RunsFile =>
  RunsFileSchema.parse({
    kind: 'tutor-runs',
    updated_at: runs[0]?.started_at ?? '2026-11-24T09:00:00.000Z',
    total,
    tries,
    runs,
  });

/** The editor's address of bob's last run, at the node to blame. */
export const BOB_RUN_URL = 'http://127.0.0.1:5601/workflow/wf1/executions/41/node-enrich';
/** bob's runs: five explained, the last unmet at enrich after reaching decide; enrich took 3 tries (the
 * tries out of stage order, as a file may hold them). */
export const BOB_RUNS = runsFile(
  [
    tutorRun('41', '2026-11-24T09:52:30.000Z', { verdict: 'unmet', unmet_stage: 'enrich', status: 'error' }),
    tutorRun('40', '2026-11-24T09:50:00.000Z', { reached: 'validate' }),
  ],
  { decide: 1, webhook: 0, enrich: 3 },
  5,
);

const lab = (name: string, port: number, state: LabState | boolean, report: unknown, runs?: unknown) => ({
  name,
  // A boolean: the document's first shape (`up`), which still reads.
  ...(typeof state === 'boolean' ? { up: state } : { state }),
  editor_url: `http://127.0.0.1:${5600 + port}`,
  console_url: `http://127.0.0.1:${8000 + port}`,
  report,
  ...(runs === undefined ? {} : { runs }),
});

export const CLASS: ClassInput = {
  generated_at: '2026-11-24T10:02:00.000Z',
  labs: [
    lab('alice', 1, 'running', checkReport('all', { unjudged: 'webhook' })),
    lab('bob', 2, 'running', checkReport('decide', { failing: 'enrich', hint: ENRICH_HINT }), BOB_RUNS),
    // A runs file that is not the tutor's: no runs yet, the rest of carol's row as ever.
    lab('carol', 3, 'broken', checkReport('all', { stoppedAt: 'webhook', hint: STOPPED_LINE }), {
      ...BOB_RUNS,
      total: 'five',
    }),
    lab('dave', 4, 'stopped', checkReport('validate')),
    lab('erin', 5, true, null),
    lab('frank <script>', 6, 'absent', null),
  ],
};
