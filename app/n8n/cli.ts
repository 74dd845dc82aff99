#!/usr/bin/env node
/**
 * The lab's n8n commands, run by the host scripts inside the lab's containers (Node 20, no shell tools):
 *   node dist/app/n8n/cli.js setup                  < {"email","password","firstName","lastName"[,"apiKey"]}
 *   node dist/app/n8n/cli.js solution [FILE...]     (default: every *.json in /lab/workflows)
 *   node dist/app/n8n/cli.js stop-runs
 *   node dist/app/n8n/cli.js swap FILE...           (the host's e2e suites: every unfinished run stopped, every
 *                                                    other published workflow unpublished, then as solution)
 *   node dist/app/n8n/cli.js unpublish ID... | republish ID...   (make restore: app/n8n/restore.ts)
 *   node dist/app/n8n/cli.js starter STAGE [FILE...] (the reference exports, as for solution, cut up to the stage
 *                                                    before STAGE, added unpublished: app/n8n/starter.ts; LAB_STARTERS=off refuses)
 *   node dist/app/n8n/cli.js webhook-listening PATH
 *   node dist/app/n8n/cli.js init                   (the Kubernetes lab's set-up container: app/n8n/init.ts)
 * Env: N8N_URL (e.g. http://n8n:5678); N8N_API_KEY for solution and stop-runs; for init N8N_OWNER_EMAIL,
 * N8N_OWNER_PASSWORD, N8N_API_KEY_FILE (where the key is kept) and LAB_MODE (exercise or demo). Secrets come on stdin or
 * in the environment, never on argv. One line per outcome on stdout, a one-line error on stderr; exit 0
 * done, 1 failed (or refused, or: not listening), 2 usage.
 */
import { z } from 'zod';
import { readSetting, SettingError } from '../lab-settings/rules.js';
import { LAB_MODE, LAB_STARTERS } from '../lab-settings/settings.js';
import { withKeyFile } from '../tool-kit/key-file.js';
import { N8nError, PublicApi } from './client.js';
import { initLab } from './init.js';
import { republishIds, unpublishIds } from './restore.js';
import { setupLab } from './setup.js';
import { importSolution, readReferences, SolutionRefused } from './solution.js';
import { addStarter, StarterRefused } from './starter.js';
import { StopRunsError, stopUnfinishedRuns } from './stop-runs.js';
import { postWebhookListening } from './webhooks.js';

const USAGE =
  'usage: cli.js setup|solution [FILE...]|stop-runs|swap FILE...|unpublish ID...|republish ID...|starter STAGE [FILE...]|webhook-listening PATH|init (env N8N_URL, N8N_API_KEY)';

/** A workflow id as n8n makes them (letters and digits); anything else on argv is refused. */
const WorkflowIdsSchema = z.array(z.string().regex(/^[A-Za-z0-9]{1,64}$/));

/** How long init waits for n8n main to be ready: a first start on a busy node takes minutes. */
const INIT_WAIT_MS = 600_000;

class UsageError extends Error {}

const SetupInputSchema = z.object({
  email: z.string().min(1),
  password: z.string().min(1),
  firstName: z.string().min(1),
  lastName: z.string().min(1),
  apiKey: z.string().optional(),
});

function env(name: string, from: NodeJS.ProcessEnv = process.env): string {
  const value = from[name]?.trim();
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

/** The key for n8n's public API: N8N_API_KEY, or the file N8N_API_KEY_FILE names (the Kubernetes lab). */
const apiKey = () => env('N8N_API_KEY', withKeyFile(process.env));

async function stdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

async function run(command: string | undefined, args: string[]): Promise<{ lines: string[]; code: 0 | 1 }> {
  switch (command) {
    case 'setup': {
      const input = SetupInputSchema.safeParse(safeJson(await stdin()));
      if (!input.success)
        throw new UsageError('setup reads {"email","password","firstName","lastName"[,"apiKey"]} on stdin');
      const { apiKey, ...owner } = input.data;
      const result = await setupLab({ url: env('N8N_URL') }, owner, apiKey?.trim() || undefined);
      return {
        lines: [`owner ${result.owner}`, result.key.kept ? 'api key kept' : `key ${result.key.raw}`],
        code: 0,
      };
    }
    case 'solution': {
      const url = env('N8N_URL');
      const key = apiKey();
      return { lines: await importSolution({ url }, key, readReferences(args)), code: 0 };
    }
    case 'stop-runs': {
      if (args.length > 0) throw new UsageError('stop-runs takes no argument');
      const stopped = await stopUnfinishedRuns({ n8nUrl: env('N8N_URL'), apiKey: apiKey() });
      return { lines: [`stopped ${stopped} unfinished workflow run(s)`], code: 0 };
    }
    case 'swap': {
      // One n8n serves a suite's runs one after another: the next run's workflows replace the former's
      // in place (same name, same id, so n8n never holds a webhook path for a workflow gone), and nothing
      // of the former run may still run, wait or listen when the next starts.
      if (args.length === 0) throw new UsageError('swap takes the workflow exports to publish');
      const refs = readReferences(args);
      const url = env('N8N_URL');
      const key = apiKey();
      const stopped = await stopUnfinishedRuns({ n8nUrl: url, apiKey: key });
      const api = new PublicApi({ url }, key);
      const names = new Set(refs.map((r) => r.body.name));
      const others = (await api.listWorkflows({ active: true })).filter((w) => !names.has(w.name));
      const unpublished = await unpublishIds(
        api,
        others.map((w) => w.id),
      );
      return {
        lines: [
          `stopped ${stopped} unfinished workflow run(s)`,
          `unpublished ${unpublished} other workflow(s)`,
          ...(await importSolution({ url }, key, refs)),
        ],
        code: 0,
      };
    }
    case 'unpublish':
    case 'republish': {
      const ids = WorkflowIdsSchema.safeParse(args);
      if (!ids.success) throw new UsageError(`${command} takes workflow ids (letters and digits)`);
      const api = new PublicApi({ url: env('N8N_URL') }, apiKey());
      if (command === 'republish') return { lines: await republishIds(api, ids.data), code: 0 };
      return { lines: [`unpublished ${await unpublishIds(api, ids.data)} workflow(s)`], code: 0 };
    }
    case 'starter': {
      const [stage, ...rest] = args;
      if (!stage || rest.length > 0) throw new UsageError('starter takes a STAGE');
      const starters = readSetting(LAB_STARTERS, process.env);
      const connect = () => new PublicApi({ url: env('N8N_URL') }, apiKey());
      return { lines: await addStarter(connect, stage, starters), code: 0 };
    }
    case 'webhook-listening': {
      const [path, ...rest] = args;
      if (!path || rest.length > 0) throw new UsageError('webhook-listening takes one PATH');
      const listening = await postWebhookListening(env('N8N_URL'), path);
      return {
        lines: [`${listening ? 'listening' : 'not listening'} POST /webhook/${path}`],
        code: listening ? 0 : 1,
      };
    }
    case 'k8s-init':
      return (await import('./k8s-init.js')).k8sInit(args, process.env);
    case 'init': {
      if (args.length > 0) throw new UsageError('init takes no argument');
      const mode = readSetting(LAB_MODE, process.env);
      await initLab({
        n8n: { url: env('N8N_URL') },
        owner: {
          email: env('N8N_OWNER_EMAIL'),
          password: env('N8N_OWNER_PASSWORD'),
          firstName: 'Lab',
          lastName: 'Trainee',
        },
        keyFile: env('N8N_API_KEY_FILE'),
        demo: mode === 'demo',
        waitMs: INIT_WAIT_MS,
        pollMs: 2000,
        say: (line) => process.stdout.write(`${line}\n`),
      });
      return { lines: [], code: 0 };
    }
    default:
      throw new UsageError(command === undefined ? 'no command' : `unknown command ${command}`);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const [command, ...args] = process.argv.slice(2);
run(command, args).then(
  ({ lines, code }) => {
    for (const line of lines) process.stdout.write(`${line}\n`);
    process.exitCode = code;
  },
  (err: unknown) => {
    // A lab setting that breaks its rule (app/lab-settings) is a usage error too.
    const usage = err instanceof UsageError || err instanceof SettingError;
    const known =
      usage ||
      err instanceof N8nError ||
      err instanceof SolutionRefused ||
      err instanceof StopRunsError ||
      err instanceof StarterRefused;
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `n8n ${command ?? ''}: ${known ? message : `failed: ${message}`}${usage ? ` (${USAGE})` : ''}\n`.replace(
        /\n(?!$)/g,
        ' ',
      ),
    );
    process.exitCode = usage ? 2 : 1;
  },
);
