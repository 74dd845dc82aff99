/** One run of the stage checker: reset, each scenario of the stages asked for, the report and history written. */
import { appendHistory, historyLineOf, historyPathOf, writeFileAtomic } from '../check-report/history.js';
import {
  type CheckReport,
  CheckReportSchema,
  type ExpectationResult,
  type RunPointer,
  type StageResult,
  type Stopped,
} from '../check-report/report.js';
import { CHECK_TIMING, type Timing } from '../driver/timing.js';
import { loadMapping } from '../judges/mapping.js';
import { type Evidence, type Scenario, scenariosFor, stagesUpTo } from '../judges/scenarios.js';
import type { MockApiClient } from '../mock-api-client/client.js';
import { n8nRunSource } from '../n8n/runs.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';
import { openSession } from '../targets/session.js';
import type { startReferenceTarget } from '../targets/targets.js';
import type { Output } from '../tool-kit/output.js';
import { LAB_USER } from '../workflow/scenario.js';
import { type CheckContext, CheckSetupError, NotListening } from './drive.js';
import type { CheckOptions } from './options.js';
import { checkScenario } from './scenario-check.js';
import { formatTimings, type TimedStimulus } from './timings.js';

export const CHECK_REFERENCE_TIMING: Timing = CHECK_TIMING.reference;
export const CHECK_N8N_TIMING: Timing = CHECK_TIMING.n8n;

export interface CheckHooks {
  /** Starts the reference target; the tests pass broken variants of the reference workflow here. */
  startReference?: typeof startReferenceTarget;
  /** Replaces the timing of the target (tests). */
  timing?: Timing;
  /** Sees each scenario's final evidence (tests spoil it to show each expectation can fail). */
  onEvidence?: (scenario: Scenario, evidence: Evidence) => void;
}

export async function runCheck(
  options: CheckOptions,
  output: Output,
  hooks: CheckHooks = {},
): Promise<CheckReport> {
  const startedAt = new Date();
  const stages = options.only && options.stage !== 'all' ? [options.stage] : stagesUpTo(options.stage);
  const scenarios = scenariosFor(stages);
  const mapping = await loadMapping(options.mappingPath);
  const session = await openSession(options, output, hooks.startReference);
  const { api, target } = session;
  try {
    const timing =
      hooks.timing ?? (options.target === 'reference' ? CHECK_REFERENCE_TIMING : CHECK_N8N_TIMING);
    const notes: string[] = [];
    const note = (message: string) => {
      if (!notes.includes(message)) notes.push(message);
    };
    if (stages.includes('webhook') && options.target === 'n8n' && options.apiKey === undefined) {
      note('no N8N_API_KEY: the Webhook stage’s execution data is judged from the next stage');
    }
    if (options.target === 'n8n' && options.apiKey === undefined) {
      note('no N8N_API_KEY: a FAIL cannot point at its n8n run, and each wait ends on a quiet journal');
    }
    const runs =
      options.target === 'n8n'
        ? options.apiKey === undefined
          ? undefined
          : n8nRunSource({ n8nUrl: options.n8nUrl, apiKey: options.apiKey, editorUrl: options.editorUrl })
        : target.runs;

    output.out(
      `check: stages ${stages[0]}..${stages.at(-1)} on ${target.name} at ${target.workflowUrl}, mock API ${api.describe}; ` +
        `${scenarios.length} stimuli`,
    );
    const identity = await labIdentity(api);
    const context: CheckContext = {
      options,
      target,
      api,
      timing,
      mapping,
      identity,
      note,
      runs,
      ...(hooks.onEvidence ? { onEvidence: hooks.onEvidence } : {}),
    };
    const results: ExpectationResult[] = [];
    const timed: TimedStimulus[] = [];
    let stopped: Stopped | null = null;
    for (const scenario of scenarios) {
      const began = performance.now();
      try {
        const checked = await checkScenario(context, scenario);
        results.push(...checked.results);
        if (checked.timings !== null) timed.push({ stimulus: scenario.stimulus, ...checked.timings });
      } catch (error) {
        if (!(error instanceof NotListening)) throw error;
        stopped = error.stopped;
        results.push(error.result);
        break;
      } finally {
        await target.afterCase?.();
      }
      output.err(`  ${scenario.stimulus} (${((performance.now() - began) / 1000).toFixed(1)} s)`);
    }

    const ordered = stages.flatMap((stage) => results.filter((r) => r.stage === stage));
    // A stopped check reports the stages it reached; the rest were never judged.
    const judged = stopped === null ? stages : stages.filter((s) => ordered.some((r) => r.stage === s));
    const stageResults = judged.map((stage) => summarize(stage, ordered));
    const finishedAt = new Date();
    const report = CheckReportSchema.parse({
      kind: 'stage-check',
      requested: options.stage,
      target: target.name,
      workflow_url: target.workflowUrl,
      api: api.describe,
      started_at: startedAt.toISOString(),
      finished_at: finishedAt.toISOString(),
      seconds: Math.round(finishedAt.getTime() - startedAt.getTime()) / 1000,
      passed: stopped === null && stageResults.every((s) => s.status === 'pass'),
      stages: stageResults,
      results: ordered,
      notes,
      stopped,
    });
    await writeFileAtomic(options.reportPath, `${JSON.stringify(report, null, 2)}\n`);
    // Every check, not only the last, for the class board's day (app/check-report/history.ts); a history
    // that cannot be written costs the board a line, never the trainee their result.
    await appendHistory(historyPathOf(options.reportPath), historyLineOf(report)).catch((error: unknown) =>
      output.err(
        `check: the check history was not written: ${error instanceof Error ? error.message : error}`,
      ),
    );
    if (stopped !== null) {
      output.err(`check: ${stopped.message}`);
      return report;
    }
    if (options.json) {
      output.out(JSON.stringify(report, null, 2));
      if (options.timings) output.err(formatTimings(timed, report.seconds));
      return report;
    }
    output.out(formatResults(report));
    if (options.timings) output.out(formatTimings(timed, report.seconds));
    output.out(`results: ${options.reportPath}`);
    return report;
  } finally {
    await session.close();
  }
}

/** The lab user's identity, read before the first reset, to recognise it in a case later. */
async function labIdentity(api: MockApiClient): Promise<Record<string, unknown> | null> {
  try {
    const answer = await api.request('GET', `/identity/${LAB_USER}`);
    return answer.status === 200 &&
      typeof answer.body === 'object' &&
      answer.body !== null &&
      !Array.isArray(answer.body)
      ? Object.fromEntries(Object.entries(answer.body))
      : null;
  } catch (error) {
    throw new CheckSetupError(
      `the mock API (${api.describe}) cannot be reached: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function summarize(stage: StageName, results: readonly ExpectationResult[]): StageResult {
  const own = results.filter((r) => r.stage === stage);
  const counts = {
    pass: own.filter((r) => r.status === 'pass').length,
    fail: own.filter((r) => r.status === 'fail').length,
    unjudged: own.filter((r) => r.status === 'unjudged').length,
  };
  return { stage, status: counts.fail > 0 ? 'fail' : 'pass', counts };
}

const LABEL = { pass: 'PASS', fail: 'FAIL', unjudged: 'UNJUDGED' } as const;

/** The label of a FAIL's want/got line; the console's check panel (client/check-panel.ts) says the same. */
const MISMATCH = 'mismatch: ';

/**
 * One line per expectation, grouped by stage; under a failure its hint, then its want/got line (the
 * report's detail, `mismatch: POST /blocklist: want 1 request, got 0`), under an unjudged line why.
 */
export function formatResults(report: CheckReport): string {
  const width = Math.max(...STAGE_NAMES.map((s) => s.length));
  const lines: string[] = [];
  for (const result of report.results) {
    lines.push(
      `${LABEL[result.status].padEnd(8)}  ${result.stage.padEnd(width)}  ${result.stimulus}: ${result.expectation}`,
    );
    const indent = ' '.repeat(10 + width + 2);
    if (result.hint !== null)
      lines.push(`${indent}${result.status === 'fail' ? 'hint' : 'why'}: ${result.hint}`);
    if (result.detail !== null) lines.push(`${indent}${MISMATCH}${result.detail}`);
    if (result.run !== null) lines.push(`${indent}${runLine(result.run)}`);
  }
  lines.push('');
  for (const stage of report.stages) {
    const { pass, fail, unjudged } = stage.counts;
    lines.push(
      `${stage.status === 'pass' ? 'PASS' : 'FAIL'}  stage ${stage.stage}: ${pass} passed, ${fail} failed${unjudged > 0 ? `, ${unjudged} unjudged` : ''}`,
    );
  }
  for (const note of report.notes) lines.push(`(checker: ${note})`);
  return lines.join('\n');
}

/** `run: <url> (<status>) node: <node>: <why>`; what is unknown is left out. */
export function runLine(run: RunPointer): string {
  const where = run.url ?? (run.execution_id === null ? null : `execution ${run.execution_id}`);
  return [
    'run:',
    ...(where === null ? [] : [where]),
    ...(run.status === null ? [] : [`(${run.status})`]),
    ...(run.node === null ? [] : [`node: ${run.node}:`]),
    run.why,
  ].join(' ');
}
