/**
 * The two workflow targets the runner can drive: the reference workflow (the guide's) run by the
 * simulator in process, and n8n. They differ only in where the triggers live and how patient the runner
 * must be.
 */

import { MATRIX_TIMING, type Timing } from '../driver/timing.js';
import type { RunSource } from '../runs/run.js';
import { startSimulatorHost } from '../simulator/host.js';
import { simulatorRuns } from '../simulator/runs.js';
import { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from '../workflow/constants.js';
import { guideWorkflowsUpTo, type WorkflowOverrides } from '../workflow/guide/state.js';

export type TargetName = 'reference' | 'n8n';

export interface Target {
  name: TargetName;
  workflowUrl: string;
  approvalTimeoutSeconds: number;
  timing: Timing;
  afterCase?: () => Promise<void>;
  /** Where the runs of the stimuli are found (n8n: set by the checker when it has an API key). */
  runs?: RunSource;
  close(): Promise<void>;
}

export const REFERENCE_TIMING: Timing = MATRIX_TIMING.reference;
export const N8N_TIMING: Timing = MATRIX_TIMING.n8n;

/** The reference host's default limit: short, because the runner waits for it in approval_timed_out. */
export const REFERENCE_APPROVAL_TIMEOUT_SECONDS = 3;
/** The n8n workflow's default (its APPROVAL_TIMEOUT_SECONDS setting); the runner cannot change it. */
export const N8N_APPROVAL_TIMEOUT_SECONDS = DEFAULT_APPROVAL_TIMEOUT_SECONDS;

export async function startReferenceTarget(options: {
  mockApiUrl: string;
  approvalTimeoutSeconds: number;
  log?: (line: string) => void;
  /** Changes nodes of the reference (a broken variant, say: app/check/variants.ts). */
  variant?: WorkflowOverrides;
}): Promise<Target> {
  const host = await startSimulatorHost({
    mockApiUrl: options.mockApiUrl,
    workflows: guideWorkflowsUpTo('rollback', undefined, options.variant),
    env: { APPROVAL_TIMEOUT_SECONDS: String(options.approvalTimeoutSeconds) },
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    name: 'reference',
    workflowUrl: host.url,
    approvalTimeoutSeconds: options.approvalTimeoutSeconds,
    timing: REFERENCE_TIMING,
    // A failed case may leave a run waiting for approval; it must not write into the next case's state.
    afterCase: () => host.stopRuns(),
    runs: simulatorRuns(host),
    close: () => host.close(),
  };
}

export function n8nTarget(options: { n8nUrl: string; approvalTimeoutSeconds: number }): Target {
  return {
    name: 'n8n',
    workflowUrl: options.n8nUrl,
    approvalTimeoutSeconds: options.approvalTimeoutSeconds,
    timing: N8N_TIMING,
    close: async () => {},
  };
}
