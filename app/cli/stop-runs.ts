#!/usr/bin/env node
/**
 * `make reset`'s first step, run inside the console's container (the one that reaches n8n main and not
 * the mock API): stops every unfinished workflow run. The key comes on stdin, so that it appears in no
 * process list.   Usage: stop-runs.js N8N_URL < key      Prints "stopped N"; exit 1 with one line else.
 */
import { StopRunsError, stopUnfinishedRuns } from '../n8n/stop-runs.js';

async function main(): Promise<void> {
  const n8nUrl = process.argv[2];
  let key = '';
  for await (const chunk of process.stdin) key += String(chunk);
  if (!n8nUrl || key.trim() === '') {
    process.stderr.write('stop-runs: usage: stop-runs.js N8N_URL < api-key\n');
    process.exit(2);
  }
  try {
    const stopped = await stopUnfinishedRuns({ n8nUrl, apiKey: key.trim() });
    process.stdout.write(`stopped ${stopped}\n`);
  } catch (err) {
    const why = err instanceof StopRunsError ? err.message : `n8n unreachable: ${(err as Error).message}`;
    process.stderr.write(`stop-runs: ${why}\n`);
    process.exit(1);
  }
}

void main();
