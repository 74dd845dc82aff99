/**
 * The scripted trainee: does what a trainee does in the n8n editor, through the editor's REST API with the
 * trainee's own login (never a database import). `--upto STAGE` saves the trainee's workflow as built up
 * to that stage (app/workflow/n8n/partial.ts): created the first time under the trainee's own name,
 * updated on later steps, published each time (from `rollback` on, and for `all`, the rollback workflow
 * too), then waits until n8n listens on its webhook path. `--unpublish` unpublishes the trainee's workflows.
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... npx tsx test/lab/trainee.ts --n8n http://127.0.0.1:5678 --upto validate
 *   (or the login as {"email","password"} on stdin). One line per action; exit 1 with one line on failure,
 *   2 on usage.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { EditorSession, type Workflow, type WorkflowBody } from '../../app/n8n/client.js';
import { liveWebhooks, postWebhookListening, webhooksOf } from '../../app/n8n/webhooks.js';
import { TRAINEE_STAGES, type TraineeStage, traineeWorkflows } from '../../app/workflow/n8n/partial.js';

export const TRAINEE_NAMES = {
  response: 'My Suspicious Login Response',
  rollback: 'My Suspicious Login Rollback',
};
const LISTEN_TIMEOUT_MS = 30_000;

const LoginSchema = z.object({ email: z.string().min(1), password: z.string().min(1) });
class Usage extends Error {}

async function login(): Promise<z.infer<typeof LoginSchema>> {
  const fromEnv = LoginSchema.safeParse({
    email: process.env.TRAINEE_EMAIL,
    password: process.env.TRAINEE_PASSWORD,
  });
  if (fromEnv.success) return fromEnv.data;
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const fromStdin = LoginSchema.safeParse(json);
  if (!fromStdin.success)
    throw new Usage(
      'no login: set TRAINEE_EMAIL and TRAINEE_PASSWORD, or give {"email","password"} on stdin',
    );
  return fromStdin.data;
}

async function waitFor(n8n: string, path: string, listening: boolean): Promise<void> {
  const deadline = Date.now() + LISTEN_TIMEOUT_MS;
  while ((await postWebhookListening(n8n, path)) !== listening) {
    if (Date.now() > deadline) {
      throw new Error(
        `n8n ${listening ? 'does not listen' : 'still listens'} on POST /webhook/${path} after ${LISTEN_TIMEOUT_MS / 1000} s`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { n8n: { type: 'string' }, upto: { type: 'string' }, unpublish: { type: 'boolean' } },
  });
  if (!values.n8n || (values.upto === undefined) === (values.unpublish !== true)) {
    throw new Usage('usage: trainee.ts --n8n URL (--upto STAGE|all | --unpublish)');
  }
  const n8n = values.n8n;
  const { email, password } = await login();
  const session = await EditorSession.login({ url: n8n }, email, password);
  const mine = (await session.listWorkflows()).filter(
    (w) => w.name === TRAINEE_NAMES.response || w.name === TRAINEE_NAMES.rollback,
  );

  if (values.unpublish) {
    for (const { id } of mine) {
      const workflow = await session.getWorkflow(id);
      if (!workflow.active) continue;
      const paths = liveWebhooks(workflow).map((l) => l.path);
      await session.unpublish(id);
      for (const path of paths) await waitFor(n8n, path, false);
      console.log(`unpublished "${workflow.name}" (id ${id})`);
    }
    return;
  }

  const stages: (TraineeStage | 'all')[] = [...TRAINEE_STAGES, 'all'];
  const stage = stages.find((s) => s === values.upto);
  if (!stage) throw new Usage(`--upto takes one of ${stages.join(', ')}`);
  for (const built of traineeWorkflows(stage, TRAINEE_NAMES)) {
    const body: WorkflowBody = {
      name: built.name,
      nodes: built.nodes,
      connections: built.connections,
      settings: built.settings,
    };
    const existing = mine.find((w) => w.name === built.name);
    const saved: Workflow = existing
      ? await session.updateWorkflow(existing.id, body)
      : await session.createWorkflow(body);
    console.log(
      `${existing ? 'saved' : 'created'} "${saved.name}" (id ${saved.id}, ${built.nodes.length} nodes)`,
    );
    if (!saved.versionId) throw new Error(`n8n gave "${saved.name}" no versionId to publish`);
    await session.publish(saved.id, saved.versionId);
    for (const { path } of webhooksOf(built.nodes)) {
      await waitFor(n8n, path, true);
      console.log(`published "${saved.name}": listening on POST /webhook/${path}`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(`trainee: ${err instanceof Error ? err.message : String(err)}`.replace(/\n/g, ' '));
  process.exitCode = err instanceof Usage ? 2 : 1;
});
