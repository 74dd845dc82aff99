/**
 * Stops every unfinished run of the workflow platform (waiting for approval, running, queued) through
 * n8n's public API, and repeats until n8n lists none: a run stopped here can no longer resume, time out
 * or call the mock API. `make reset` and the console's Reset call this before they clear the mock API,
 * so that no run of the previous exercise can write into the next one.
 */
import { N8nError, PublicApi } from './client.js';

const STOPPABLE = ['queued', 'running', 'waiting'] as const;
/** The statuses n8n's list filter knows for the same runs (`queued` is `new` there). */
const UNFINISHED = ['new', 'running', 'waiting'] as const;

export interface StopRunsOptions {
  /** n8n as this process reaches it, e.g. http://n8n:5678. */
  n8nUrl: string;
  /** A public-API key with the execution:stop and execution:list scopes. */
  apiKey: string;
  /** How long to keep stopping until none is left. */
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

export class StopRunsError extends Error {}

/** Returns how many runs it stopped; throws StopRunsError when n8n refuses or runs are left. */
export async function stopUnfinishedRuns(options: StopRunsOptions): Promise<number> {
  const { n8nUrl, apiKey, timeoutMs = 10_000, fetchImpl = fetch } = options;
  const api = new PublicApi({ url: n8nUrl, timeoutMs, fetchImpl }, apiKey);
  const deadline = Date.now() + timeoutMs;
  let stopped = 0;
  for (;;) {
    try {
      stopped += await api.stopExecutions(STOPPABLE);
    } catch (err) {
      throw asStopError(err, 'stopping the runs');
    }
    let left = 0;
    for (const status of UNFINISHED) {
      try {
        left += (await api.listExecutions(status, 1)).length;
      } catch (err) {
        throw asStopError(err, `listing the ${status} runs`);
      }
    }
    if (left === 0) return stopped;
    if (Date.now() > deadline) throw new StopRunsError(`runs still unfinished after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function asStopError(err: unknown, what: string): Error {
  if (err instanceof N8nError && err.status !== null)
    return new StopRunsError(`n8n answered ${err.status} to ${what}`);
  return err instanceof Error ? err : new Error(String(err));
}
