/**
 * The scripted trainee of `make test-lab`: does what a trainee does in n8n's editor, through the editor's
 * own REST API with the lab's login (never a database import). `--upto validate|enrich|all` saves the
 * trainee's workflow built up to that stage (the first time it creates it, later it updates it) and
 * publishes it; `all` also builds and publishes the rollback workflow. The nodes are the reference's
 * (what a trainee following the guide builds), under the trainee's own names and webhook ids.
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... npx tsx test/lab/trainee.ts --n8n http://127.0.0.1:5678 --upto enrich
 * One line per action; exit 1 with one line when n8n refuses.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  type EditorSession,
  listAsEditor,
  logIn,
  publishAsEditor,
  saveAsEditor,
  type WorkflowBody,
  WorkflowBodySchema,
} from '../../app/n8n/client.js';

/** The nodes a trainee has built when they check each step (the reference's names). */
const VALIDATE = [
  'Webhook',
  'Settings',
  'Validate',
  'Valid?',
  'Notify validation error',
  'Stop: alert rejected',
];
const ENRICH = [...VALIDATE, 'Enrich', 'Check identity', 'Identity ok?'];
export const STEPS = { validate: VALIDATE, enrich: ENRICH, all: null } as const;
type Step = keyof typeof STEPS;

const RESPONSE = 'docker/n8n/workflows/suspicious-login-response.json';
const ROLLBACK = 'docker/n8n/workflows/suspicious-login-rollback.json';

const Connections = z.record(
  z.string(),
  z.object({ main: z.array(z.array(z.looseObject({ node: z.string() })).nullable()) }),
);

/**
 * The workflow with only the named nodes, and only the arrows between them: what the editor holds once
 * the trainee has built that far (an output with nothing joined yet stays empty).
 */
export function upTo(workflow: WorkflowBody, keep: readonly string[] | null): WorkflowBody {
  if (keep === null) return workflow;
  const kept = new Set(keep);
  const connections = Object.fromEntries(
    Object.entries(Connections.parse(workflow.connections))
      .filter(([from]) => kept.has(from))
      .map(([from, { main }]) => [
        from,
        { main: main.map((out) => (out ?? []).filter((c) => kept.has(c.node))) },
      ]),
  );
  return { ...workflow, nodes: workflow.nodes.filter((n) => kept.has(n.name)), connections };
}

/** The trainee's own copy: their workflow's name, fresh webhook ids (the reference's are its own). */
function asTrainees(workflow: WorkflowBody): WorkflowBody {
  return {
    ...workflow,
    name: `My ${workflow.name}`,
    nodes: workflow.nodes.map((n) => ('webhookId' in n ? { ...n, webhookId: randomUUID() } : n)),
  };
}

function load(file: string): WorkflowBody {
  return WorkflowBodySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** Saves (creating or updating by name, as a trainee reopens their workflow) and publishes. */
async function saveAndPublish(session: EditorSession, workflow: WorkflowBody): Promise<void> {
  const existing = (await listAsEditor(session)).find((w) => w.name === workflow.name);
  const saved = await saveAsEditor(session, workflow, existing?.id);
  await publishAsEditor(session, saved.id, saved.versionId);
  console.log(
    `trainee: ${existing ? 'updated' : 'created'} and published '${workflow.name}' (${workflow.nodes.length} nodes)`,
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { n8n: { type: 'string' }, upto: { type: 'string' } } });
  const step = z.enum(['validate', 'enrich', 'all']).safeParse(values.upto);
  const email = process.env.TRAINEE_EMAIL;
  const password = process.env.TRAINEE_PASSWORD;
  if (!values.n8n || !step.success || !email || !password) {
    console.error(
      'trainee: usage: TRAINEE_EMAIL=.. TRAINEE_PASSWORD=.. trainee.ts --n8n URL --upto validate|enrich|all',
    );
    return 2;
  }
  try {
    const url = values.n8n;
    const session = { url, cookie: await logIn({ url }, email, password) };
    const upto: Step = step.data;
    await saveAndPublish(session, asTrainees(upTo(load(RESPONSE), STEPS[upto])));
    if (upto === 'all') await saveAndPublish(session, asTrainees(load(ROLLBACK)));
    return 0;
  } catch (err) {
    console.error(`trainee: ${(err as Error).message}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = await main();
