/**
 * `solution`: the reference workflows (n8n exports) into a running n8n through its public API: each is
 * created, or updated when a workflow of the same name exists, then published. Before changing anything
 * it refuses when another published workflow (a trainee's) holds one of their webhook paths: n8n would
 * refuse the publish, and the trainee's work must not be unpublished by surprise.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  type ClientOptions,
  N8nError,
  PublicApi,
  type Workflow,
  type WorkflowBody,
  WorkflowNodeSchema,
} from './client.js';
import { holderOf, type Listener, webhooksOf } from './webhooks.js';

/** Where the lab mounts docker/workflows in the tools' container. */
export const DEFAULT_WORKFLOWS_DIR = '/lab/workflows';

const ExportSchema = z.object({
  name: z.string().min(1),
  nodes: z.array(WorkflowNodeSchema).min(1),
  connections: z.record(z.string(), z.unknown()),
  settings: z.record(z.string(), z.unknown()).optional(),
});

export class SolutionRefused extends Error {}

export interface Reference {
  file: string;
  body: WorkflowBody;
  listeners: Listener[];
}

/** The exports in these files (a file holds one workflow or an array), or in every *.json of `dir`. */
export function readReferences(files: readonly string[], dir = DEFAULT_WORKFLOWS_DIR): Reference[] {
  let paths = [...files];
  if (paths.length === 0) {
    try {
      paths = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(dir, f));
    } catch {
      throw new SolutionRefused(
        `no folder ${dir}: give the workflow exports as arguments, or mount them there`,
      );
    }
  }
  if (paths.length === 0) throw new SolutionRefused(`no workflow export (*.json) in ${dir}`);
  return paths.flatMap((file) => {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new SolutionRefused(`${file}: not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    return (Array.isArray(data) ? data : [data]).map((item): Reference => {
      const parsed = ExportSchema.safeParse(item);
      if (!parsed.success)
        throw new SolutionRefused(`${file}: not an n8n workflow export (name, nodes, connections)`);
      const { name, nodes, connections, settings = {} } = parsed.data;
      return { file, body: { name, nodes, connections, settings }, listeners: webhooksOf(nodes) };
    });
  });
}

const ConflictHintSchema = z.array(
  z.object({ conflict: z.object({ workflowId: z.string(), webhookPath: z.string() }) }),
);

function show(l: Listener): string {
  return `${l.method} /webhook/${l.path}`;
}

/** One line per workflow published; throws SolutionRefused (nothing changed) or N8nError. */
export async function importSolution(
  options: ClientOptions,
  apiKey: string,
  refs: readonly Reference[],
): Promise<string[]> {
  const api = new PublicApi(options, apiKey);
  const all = (await api.listWorkflows()).filter((w) => w.isArchived !== true);
  const published = all.filter((w) => w.active);
  const existing = new Map<string, Workflow>();
  for (const ref of refs) {
    const same = all.find((w) => w.name === ref.body.name);
    if (same) existing.set(ref.body.name, same);
    for (const listener of ref.listeners) {
      const holder = holderOf(published, listener, same?.id);
      if (holder) {
        throw new SolutionRefused(
          `the published workflow "${holder.name}" (id ${holder.id}) listens on ${show(listener)}, which "${ref.body.name}" needs: ` +
            'unpublish it in the n8n editor (it is kept), then run this again; nothing was changed',
        );
      }
    }
  }
  const lines: string[] = [];
  for (const ref of refs) {
    const before = existing.get(ref.body.name);
    const saved = before ? await api.updateWorkflow(before.id, ref.body) : await api.createWorkflow(ref.body);
    const how = !before
      ? 'created'
      : before.versionId === saved.versionId && before.active
        ? 'unchanged'
        : 'updated';
    try {
      await api.publish(saved.id);
    } catch (err) {
      const hint =
        err instanceof N8nError && err.status === 409
          ? ConflictHintSchema.safeParse(safeJson(err.hint))
          : null;
      if (hint?.success && hint.data[0]) {
        const { workflowId, webhookPath } = hint.data[0].conflict;
        throw new SolutionRefused(
          `n8n refused to publish "${ref.body.name}": it still holds /webhook/${webhookPath} for workflow ${workflowId}, which is not ` +
            'published (n8n 2.41.1 can keep a path unpublished moments ago for up to an hour): publish and unpublish that workflow once more in the editor, or restart n8n',
        );
      }
      throw err;
    }
    lines.push(
      `published "${ref.body.name}" (id ${saved.id}, ${how})${ref.listeners.map((l) => ` on ${show(l)}`).join(',')}`,
    );
  }
  return lines;
}

function safeJson(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
