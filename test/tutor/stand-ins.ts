/**
 * Stand-ins for the tutor's tests: n8n's runs as the tutor sees them (a RunFeed in memory), a run of the
 * exercise's alert, and an explainer that records what it was given and says a fixed verdict.
 */
import { type RunDetail, type RunFeed, type RunHead, RunTooLargeError } from '../../app/runs/run.js';
import type { ExplainInput } from '../../app/tutor/explain.js';
import type { Explanation } from '../../app/tutor/explanation.js';

/** n8n's runs as the tutor sees them: each a RunDetail the test sets; `down` makes every call throw. */
export class StandInFeed implements RunFeed {
  readonly runs = new Map<string, RunDetail>();
  down = false;
  /** Runs whose data is over the feed's cap (8 MiB said). */
  readonly tooLarge = new Set<string>();
  recentCalls = 0;
  readonly detailCalls: string[] = [];
  async recent(limit: number): Promise<RunHead[]> {
    this.recentCalls++;
    if (this.down) throw new Error('n8n unreachable at http://127.0.0.1:9 (fetch failed)');
    return [...this.runs.values()]
      .map((r) => r.head)
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
      .slice(0, limit);
  }
  async detail(id: string): Promise<RunDetail | null> {
    this.detailCalls.push(id);
    if (this.down) throw new Error('n8n unreachable at http://127.0.0.1:9 (fetch failed)');
    if (this.tooLarge.has(id)) throw new RunTooLargeError(9 << 20, 8 << 20);
    const run = this.runs.get(id);
    return run === undefined ? null : structuredClone(run);
  }
}

export const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 10, 0, s)).toISOString();
export function run(
  id: string,
  status: string,
  window: [number, number | null],
  over: { headers?: Record<string, string>; user?: string; busy?: [number, number][] } = {},
): RunDetail {
  const body = {
    event_id: `evt-${id}`,
    user: over.user ?? 'lab-admin',
    source_ip: '203.0.113.7',
    confidence: 92,
  };
  const trigger = { headers: over.headers ?? { host: 'n8n' }, body };
  return {
    head: {
      id,
      status,
      startedAt: at(window[0]),
      stoppedAt: window[1] === null ? null : at(window[1]),
      workflowId: 'wf-1',
      mode: 'webhook',
    },
    view: {
      id,
      url: `http://127.0.0.1:5678/workflow/wf-1/executions/${id}`,
      status,
      nodes: [
        {
          id: 'n1',
          name: 'Webhook',
          type: 'n8n-nodes-base.webhook',
          error: null,
          output: [trigger],
          url: null,
        },
      ],
      lastNode: 'Webhook',
      ...(over.busy
        ? { busy: over.busy.map(([a, b]): [number, number] => [Date.parse(at(a)), Date.parse(at(b))]) }
        : {}),
    },
    workflow: 'Suspicious Login Response',
    trigger,
  };
}

/** An explainer that keeps what it was given and says a fixed verdict: unmet at Enrich, or waiting. */
export function recordingExplainer(seen: ExplainInput[]) {
  return (input: ExplainInput): Explanation => {
    seen.push(input);
    const { head } = input.detail;
    const waiting = head.status === 'waiting';
    return {
      execution_id: head.id,
      url: input.detail.view.url,
      workflow: input.detail.workflow,
      from_editor: head.mode === 'manual',
      status: head.status,
      started_at: head.startedAt,
      stopped_at: head.stoppedAt,
      alert: null,
      kind: 'positive',
      kind_text: 'positive',
      stages: [],
      received: [],
      received_certain: !input.overlapping,
      ...(input.detail.view.busy ? { busy: input.detail.view.busy } : {}),
      verdict: waiting ? 'waiting' : 'unmet',
      unmet: waiting
        ? null
        : { stage: 'enrich', expectation: 'x', hint: 'y', mismatch: null, node: 'Webhook', why: 'z' },
      summary: waiting ? 'waiting' : 'Enrich: not met',
    };
  };
}
