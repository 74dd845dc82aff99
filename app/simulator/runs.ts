/**
 * The simulator's runs as the checker reads n8n's executions (app/runs/run.ts): found by the
 * stimulus's id and start time, with each node's output and error, so that the checker's run pointer and
 * its wait that ends with the run hold offline too.
 */
import type { BusySpan, RunNode, RunSource, RunView } from '../runs/run.js';
import type { SimulatedRun, SimulatorHost } from './host.js';

export function simulatorRuns(host: Pick<SimulatorHost, 'runs' | 'stopRuns'>): RunSource {
  const byId = (id: string) => host.runs.find((r) => r.id === id);
  return {
    async find(query) {
      const run = host.runs.find(
        (r) =>
          r.path === query.path &&
          r.eventId === query.eventId &&
          r.startedAt >= query.sentAt &&
          !query.exclude.includes(r.id),
      );
      return run === undefined ? { kind: 'none' } : { kind: 'found', run: viewOf(run) };
    },
    async status(id) {
      return byId(id)?.status ?? null;
    },
    async stop(path, since) {
      await host.stopRuns(path, since);
      return true;
    },
  };
}

/** A run as n8n's execution data shows it: its nodes in the order they first ran, each's outputs together. */
export function viewOf(run: SimulatedRun): RunView {
  const nodes = new Map<string, RunNode>();
  for (const step of run.steps) {
    const node = nodes.get(step.name) ?? {
      id: step.id,
      name: step.name,
      type: step.type,
      error: null,
      output: [],
      url: step.url,
    };
    if (step.error !== null) node.error = step.error;
    else node.output.push(step.output);
    nodes.set(step.name, node);
  }
  // n8n shows a waiting run's Wait node as its last, with no output yet.
  const waiting = run.status === 'waiting' ? run.waitingAt : null;
  if (waiting !== null && !nodes.has(waiting.name))
    nodes.set(waiting.name, { ...waiting, type: 'n8n-nodes-base.wait', error: null, output: [], url: null });
  return {
    id: run.id,
    url: null,
    status: run.status,
    nodes: [...nodes.values()],
    lastNode: waiting?.name ?? run.steps.at(-1)?.name ?? null,
    busy: run.busy.map(([from, to]): BusySpan => [from, to]),
  };
}
