/**
 * The reference host's runs as the checker reads n8n's executions (app/driver/run-watch.ts), so that the
 * checker's run pointer and its wait that ends with the run are proven offline too. The host's node names
 * are its functions'; here they carry the names the reference n8n workflow gives those nodes.
 */
import type { RunLookup, RunNode, RunSource, RunView } from '../driver/run-watch.js';
import { DECIDE } from '../workflow/n8n/stage-nodes.js';
import type { RunRecord, WorkflowHost } from './workflow-host.js';

const NODE_NAMES: Record<string, string> = {
  validate: 'Validate',
  enrich: 'Enrich',
  lookupCase: 'Case lookup',
  decide: DECIDE,
  approve: 'Wait for approval',
  block: 'Block',
  record: 'Record',
};

/** The reference's statuses in n8n's words: a run stopped on purpose (Stop and Error) is n8n's error. */
const STATUS: Record<RunRecord['status'], string> = {
  running: 'running',
  success: 'success',
  stopped: 'error',
  error: 'error',
  cancelled: 'canceled',
};

export function referenceRuns(host: Pick<WorkflowHost, 'runs'>): RunSource {
  const byId = (id: string) => host.runs.find((r) => r.id === id);
  return {
    async find(query): Promise<RunLookup> {
      const run = host.runs.find(
        (r) =>
          r.eventId === query.eventId &&
          Date.parse(r.startedAt) >= query.sentAt.getTime() &&
          !query.exclude.includes(r.id),
      );
      return run === undefined ? { kind: 'none' } : { kind: 'found', run: viewOf(run) };
    },
    async status(id) {
      const run = byId(id);
      return run === undefined ? null : statusOf(run);
    },
    // The host's afterCase cancels every run in flight.
    async stop() {
      return true;
    },
  };
}

function viewOf(run: RunRecord): RunView {
  const names: string[] = ['Webhook'];
  for (const line of run.trace) {
    const fn = line.slice(0, line.indexOf(':'));
    const name = NODE_NAMES[fn] ?? fn;
    if (names.at(-1) !== name) names.push(name);
  }
  // A run stopped on purpose (StopRun, n8n's Stop and Error) names no node as the one that errored.
  const errored = run.status === 'error' ? names.at(-1) : undefined;
  const nodes: RunNode[] = names.map((name) => ({
    name,
    type: null,
    error: name === errored ? run.error : null,
    output: [],
    url: null,
  }));
  return { id: run.id, url: null, status: statusOf(run), nodes, lastNode: names.at(-1) ?? null };
}

const statusOf = (run: RunRecord) =>
  run.status === 'running' && run.waiting ? 'waiting' : STATUS[run.status];
