#!/usr/bin/env node
/**
 * What the lab's host commands ask of n8n, run in the lab's tools container (it reaches n8n by service
 * name): `setup` (the lab's login and API key), `solution` (publish the reference workflows), `stop-runs`.
 * Settings from the environment: N8N_URL (default http://n8n:5678), N8N_API_KEY; secrets never on argv.
 * One line per outcome on stdout; one line on stderr and exit 1 when n8n refuses; exit 2 on usage.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  apiKeyWorks,
  createApiKey,
  listWorkflows,
  logIn,
  N8nError,
  type PublicApi,
  publishWorkflow,
  setUpOwner,
  upsertWorkflow,
  type WorkflowBody,
  WorkflowBodySchema,
  webhookPathsOf,
} from './client.js';
import { StopRunsError, stopUnfinishedRuns } from './stop-runs.js';

const USAGE = `usage: node dist/app/n8n/cli.js setup < {"email","password","firstName","lastName","apiKey"?}
       node dist/app/n8n/cli.js solution [FILE...]   (default: every .json in /lab/workflows)
       node dist/app/n8n/cli.js stop-runs
env: N8N_URL (default http://n8n:5678), N8N_API_KEY (solution, stop-runs)`;

class UsageError extends Error {}

const SetupInput = z.object({
  email: z.string().email(),
  password: z.string().min(8),
  firstName: z.string().min(1),
  lastName: z.string().min(1),
  apiKey: z.string().optional(),
});

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function setup(url: string): Promise<void> {
  const parsed = SetupInput.safeParse(JSON.parse((await readStdin()) || '{}'));
  if (!parsed.success)
    throw new UsageError(`setup: stdin is not the owner's JSON (${parsed.error.issues[0]?.path.join('.')})`);
  const { apiKey, ...owner } = parsed.data;
  console.log(`owner ${await setUpOwner({ url }, owner)}`);
  if (apiKey && (await apiKeyWorks({ url, apiKey }))) {
    console.log('key kept');
    return;
  }
  const cookie = await logIn({ url }, owner.email, owner.password);
  console.log(`key ${await createApiKey({ url }, cookie, `soar-lab ${new Date().toISOString()}`)}`);
}

function workflowFiles(args: readonly string[]): string[] {
  if (args.length > 0) return [...args];
  const dir = '/lab/workflows';
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => join(dir, f));
}

function readWorkflows(files: readonly string[]): WorkflowBody[] {
  return files.flatMap((file) => {
    const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return (Array.isArray(data) ? data : [data]).map((w) => WorkflowBodySchema.parse(w));
  });
}

/** Publishes the reference workflows; refuses, changing nothing, when another workflow holds a path. */
async function solution(api: PublicApi, args: readonly string[]): Promise<void> {
  const workflows = readWorkflows(workflowFiles(args));
  if (workflows.length === 0) throw new UsageError('solution: no workflow to publish');
  const existing = await listWorkflows(api);
  for (const wf of workflows) {
    for (const path of webhookPathsOf(wf)) {
      const holder = existing.find((w) => w.active && w.name !== wf.name && webhookPathsOf(w).includes(path));
      if (holder)
        throw new N8nError(
          `the published workflow '${holder.name}' holds ${path.replace(' ', ' /webhook/')}: unpublish it in the editor, then run make solution again`,
        );
    }
  }
  for (const wf of workflows) {
    const id = await upsertWorkflow(api, wf, existing);
    await publishWorkflow(api, id);
    console.log(
      `published '${wf.name}' (${webhookPathsOf(wf)
        .map((p) => p.replace(' ', ' /webhook/'))
        .join(', ')})`,
    );
  }
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...args] = argv;
  const url = env.N8N_URL || 'http://n8n:5678';
  const apiKey = env.N8N_API_KEY ?? '';
  try {
    if (command === 'setup') await setup(url);
    else if (command === 'solution' || command === 'stop-runs') {
      if (apiKey === '') throw new UsageError(`${command}: N8N_API_KEY is not set (make up makes it)`);
      if (command === 'solution') await solution({ url, apiKey }, args);
      else
        console.log(
          `stopped ${await stopUnfinishedRuns({ n8nUrl: url, apiKey })} unfinished workflow run(s)`,
        );
    } else throw new UsageError(command ? `unknown command '${command}'` : 'a command is needed');
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`n8n: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    const known = err instanceof N8nError || err instanceof StopRunsError || err instanceof z.ZodError;
    process.stderr.write(
      `n8n: ${known ? (err as Error).message : `n8n unreachable at ${url}: ${(err as Error).message}`}\n`,
    );
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2), process.env);
