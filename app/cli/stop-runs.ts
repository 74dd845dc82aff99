#!/usr/bin/env node
/**
 * `make reset`'s first step, kept for the host script that calls it: stops every unfinished workflow run.
 * The key comes on stdin, so that it appears in no process list. The same as
 * `N8N_URL=... N8N_API_KEY=... node dist/app/n8n/cli.js stop-runs` (app/n8n/cli.ts).
 *   Usage: stop-runs.js N8N_URL < key      Prints "stopped N"; exit 1 with one line else, 2 on usage.
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
    const why =
      err instanceof StopRunsError
        ? err.message
        : `n8n unreachable: ${err instanceof Error ? err.message : String(err)}`;
    process.stderr.write(`stop-runs: ${why}\n`);
    process.exit(1);
  }
}

void main();
