/**
 * The scripted trainee: does what a trainee does in the n8n editor, through the editor's REST API with the
 * trainee's own login (never a database import). `--upto STAGE` saves the trainee's workflow as the guide
 * has it after that stage (app/workflow/guide/state.ts; `all`: the whole, as after `rollback`), with the
 * trainee's own names and node ids: created the first time under the trainee's own name,
 * updated on later steps, published each time (from `rollback` on, and for `all`, the rollback workflow
 * too), then waits until n8n listens on its webhook path. `--unpublish` unpublishes the trainee's workflows.
 * `--unpublish --name NAME` unpublishes that workflow instead (a starter), `--publish NAME` publishes one
 * by name, `--export STAGE` prints the response workflow up to STAGE as the JSON a trainee pastes into the
 * editor (no n8n needed). `--nodes NAME` prints that workflow's nodes as the editor holds them, one a line
 * (name, a tab, type). `--put FILE --name NAME` is a trainee who takes a starter on through the guide's
 * next stage: NAME's nodes, connections and settings become FILE's (an export of the guide's workflow after
 * that stage, docker/workflows/stages), saved, published, and listening. `--publish` and `--put` first
 * unpublish whatever other workflow holds the webhook path (n8n allows one). `--scratch` saves a third, never published workflow with pinned data (a trainee's scratch pad), and
 * `--list` prints every workflow the trainee sees in the editor, one a line: name, published or not, and
 * how many nodes have pinned data (what `make save` and `make restore` must keep).
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... npx tsx test/lab/trainee.ts --n8n http://127.0.0.1:5678 --upto validate
 *   (or the login as {"email","password"} on stdin). One line per action; exit 1 with one line on failure,
 *   2 on usage.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { EditorSession, N8nError, type Workflow, type WorkflowBody } from '../../app/n8n/client.js';
import { liveWebhooks, postWebhookListening, webhooksOf } from '../../app/n8n/webhooks.js';
import { STAGE_NAMES, type StageName } from '../../app/stages/stages.js';
import type { N8nExport } from '../../app/workflow/export.js';
import { guideWorkflowsUpTo } from '../../app/workflow/guide/state.js';

export const TRAINEE_NAMES = {
  response: 'My Suspicious Login Response',
  rollback: 'My Suspicious Login Rollback',
};
const SCRATCH: WorkflowBody = {
  name: 'My scratch pad',
  nodes: [
    {
      id: 'b6f1c9a2-3e0d-4c55-9d2e-0a1b2c3d4e5f',
      name: 'Try an alert',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2.1,
      position: [0, 0],
      webhookId: 'f3c2a1b0-9d8e-4f7a-8b6c-5d4e3f2a1b0c',
      parameters: { path: 'scratch-pad', httpMethod: 'POST', options: {} },
    },
  ],
  connections: {},
  settings: { executionOrder: 'v1' },
  pinData: { 'Try an alert': [{ json: { body: { user: 'pinned-by-the-trainee' } } }] },
};
const LISTEN_TIMEOUT_MS = 30_000;

/** A UUID made from `seed`: the same trainee node gets the same id at every step. */
function uuidOf(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * The guide's workflows after `stage` (`all`: the whole) as the trainee's own: under the trainee's names,
 * with node and webhook ids of their own (the editor makes fresh ones), not the reference's or a starter's.
 */
function traineeWorkflows(stage: StageName | 'all'): N8nExport[] {
  return guideWorkflowsUpTo(stage === 'all' ? 'rollback' : stage, TRAINEE_NAMES).map((workflow) => ({
    ...workflow,
    nodes: workflow.nodes.map((node) => ({
      ...node,
      id: uuidOf(`${workflow.name}/${node.id}`),
      ...(node.webhookId === undefined ? {} : { webhookId: uuidOf(`${workflow.name}/${node.webhookId}`) }),
    })),
  }));
}

const LoginSchema = z.object({ email: z.string().min(1), password: z.string().min(1) });
/** An export of the guide's workflow (docker/workflows/guide/*.json), as `--put` saves it. */
const ExportSchema = z.object({
  nodes: z.array(z.looseObject({ name: z.string().min(1), type: z.string().min(1) })).min(1),
  connections: z.record(z.string(), z.unknown()),
  settings: z.record(z.string(), z.unknown()).optional(),
});
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

/**
 * Signs in; n8n 2.41.1 answers 429 to a sixth sign-in of one login within a minute (its keyed rate limit on
 * POST /rest/login), so a 429 waits and tries again, as a trainee would, within 75 s.
 */
async function signIn(n8n: string, email: string, password: string): Promise<EditorSession> {
  const deadline = Date.now() + 75_000;
  for (;;) {
    try {
      return await EditorSession.login({ url: n8n }, email, password);
    } catch (err) {
      if (!(err instanceof N8nError && err.status === 429) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 10_000));
    }
  }
}

/**
 * Before publishing `keep`: every other published workflow listening on one of `paths` is unpublished (n8n
 * refuses two on one path), as a trainee switching to a starter does.
 */
async function freePaths(session: EditorSession, n8n: string, keep: string, paths: string[]): Promise<void> {
  for (const { id } of await session.listWorkflows()) {
    if (id === keep) continue;
    const workflow = await session.getWorkflow(id);
    const held = liveWebhooks(workflow).filter((l) => paths.includes(l.path));
    if (held.length === 0) continue;
    await session.unpublish(id);
    for (const { path } of held) await waitFor(n8n, path, false);
    console.log(`unpublished "${workflow.name}" (id ${id}): it held ${held.map((l) => l.path).join(', ')}`);
  }
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
    options: {
      n8n: { type: 'string' },
      upto: { type: 'string' },
      unpublish: { type: 'boolean' },
      name: { type: 'string' },
      publish: { type: 'string' },
      scratch: { type: 'boolean' },
      list: { type: 'boolean' },
      export: { type: 'string' },
      nodes: { type: 'string' },
      put: { type: 'string' },
    },
  });
  const stages: (StageName | 'all')[] = [...STAGE_NAMES, 'all'];
  if (values.export !== undefined) {
    // What a trainee pastes into the editor (test/editor): the response workflow up to a stage, as JSON.
    const stage = stages.find((s) => s === values.export);
    if (!stage) throw new Usage(`--export takes one of ${stages.join(', ')}`);
    const [built] = traineeWorkflows(stage);
    if (!built) throw new Error(`no workflow up to ${stage}`);
    const { name, nodes, connections, settings } = built;
    console.log(JSON.stringify({ name, nodes, connections, settings }, null, 2));
    return;
  }
  const actions = [
    values.upto !== undefined,
    values.unpublish,
    values.publish !== undefined,
    values.scratch,
    values.list,
    values.nodes !== undefined,
    values.put !== undefined,
  ];
  if (
    !values.n8n ||
    actions.filter(Boolean).length !== 1 ||
    (values.name !== undefined && !values.unpublish && values.put === undefined) ||
    (values.put !== undefined && values.name === undefined)
  ) {
    throw new Usage(
      'usage: trainee.ts --n8n URL (--upto STAGE|all | --unpublish [--name NAME] | --publish NAME | --nodes NAME | --put FILE --name NAME | --scratch | --list) | --export STAGE',
    );
  }
  const n8n = values.n8n;
  const { email, password } = await login();
  const session = await signIn(n8n, email, password);
  if (values.publish !== undefined) {
    const found = (await session.listWorkflows()).find((w) => w.name === values.publish);
    if (!found) throw new Error(`no workflow named "${values.publish}" in the editor`);
    const workflow = await session.getWorkflow(found.id);
    if (!workflow.versionId) throw new Error(`n8n gave "${workflow.name}" no versionId to publish`);
    await freePaths(
      session,
      n8n,
      found.id,
      webhooksOf(workflow.nodes).map((l) => l.path),
    );
    await session.publish(found.id, workflow.versionId);
    for (const { path } of webhooksOf(workflow.nodes)) await waitFor(n8n, path, true);
    console.log(`published "${workflow.name}" (id ${found.id})`);
    return;
  }
  if (values.nodes !== undefined) {
    const found = (await session.listWorkflows()).find((w) => w.name === values.nodes);
    if (!found) throw new Error(`no workflow named "${values.nodes}" in the editor`);
    for (const n of (await session.getWorkflow(found.id)).nodes) console.log(`${n.name}\t${n.type}`);
    return;
  }
  if (values.put !== undefined) {
    const file = ExportSchema.parse(JSON.parse(readFileSync(values.put, 'utf8')));
    const found = (await session.listWorkflows()).find((w) => w.name === values.name);
    if (!found) throw new Error(`no workflow named "${values.name}" in the editor`);
    const saved = await session.updateWorkflow(found.id, {
      name: found.name,
      nodes: file.nodes,
      connections: file.connections,
      settings: file.settings ?? { executionOrder: 'v1' },
    });
    if (!saved.versionId) throw new Error(`n8n gave "${saved.name}" no versionId to publish`);
    await freePaths(
      session,
      n8n,
      saved.id,
      webhooksOf(saved.nodes).map((l) => l.path),
    );
    await session.publish(saved.id, saved.versionId);
    for (const { path } of webhooksOf(saved.nodes)) await waitFor(n8n, path, true);
    console.log(`saved "${saved.name}" as ${values.put} (${file.nodes.length} nodes) and published it`);
    return;
  }
  if (values.list) {
    const lines: string[] = [];
    for (const { id } of await session.listWorkflows()) {
      const w = await session.getWorkflow(id);
      const pinned = Object.keys((w.pinData as Record<string, unknown> | null | undefined) ?? {}).length;
      lines.push(`${w.name}\t${w.active ? 'published' : 'unpublished'}\tpinned ${pinned}`);
    }
    for (const line of lines.sort()) console.log(line);
    return;
  }
  if (values.scratch) {
    const saved = await session.createWorkflow(SCRATCH);
    console.log(`created "${saved.name}" (id ${saved.id}, unpublished, with pinned data)`);
    return;
  }
  const names = values.name !== undefined ? [values.name] : [TRAINEE_NAMES.response, TRAINEE_NAMES.rollback];
  const mine = (await session.listWorkflows()).filter((w) => names.includes(w.name));

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

  const stage = stages.find((s) => s === values.upto);
  if (!stage) throw new Usage(`--upto takes one of ${stages.join(', ')}`);
  for (const built of traineeWorkflows(stage)) {
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
