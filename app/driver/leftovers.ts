/**
 * After a driven scenario (./scenario-driver.ts): its runs still going stopped, or waited for, before the next
 * scenario resets the mock API.
 */
import type { RunSource } from '../runs/run.js';
import type { DriverEvidence } from './scenario-driver.js';
import type { Timing } from './timing.js';

/**
 * A run still going (waiting for an approval nobody will give, late on a busy host) must not write into the
 * next stimulus's state: every run of the scenario's workflows that still runs or waits is stopped, and an
 * n8n too busy to answer is asked again (up to a phase) before the next stimulus resets the mock API; a run
 * n8n would not stop that still runs is waited for (up to the same phase).
 */
export async function stopLeftovers(
  runs: RunSource | undefined,
  timing: Timing,
  note: (message: string) => void,
  { sent }: DriverEvidence,
): Promise<void> {
  const first = sent[0];
  if (runs === undefined || first === undefined) return;
  const deadline = performance.now() + timing.phaseTimeoutMs;
  for (const path of new Set(sent.map((s) => s.path))) {
    while (!(await runs.stop(path, first.sentAt)) && performance.now() < deadline) {
      note('n8n did not answer a stop of a stimulus’s run at once; it was asked again');
      await sleep(timing.pollMs);
    }
  }
  // A key that may not stop runs (no execution:stop scope): a run still going is waited for instead.
  for (const stimulus of sent) {
    if (stimulus.runId === null) continue;
    let status = stimulus.status;
    while ((status === 'new' || status === 'running') && performance.now() < deadline) {
      await sleep(timing.pollMs);
      status = (await runs.status(stimulus.runId)) ?? status;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
