/**
 * The API half of `make restore` (docker/lab/keep.sh). n8n's own import (its CLI, in a one-off container of
 * the lab's n8n) brings a save's workflows back with their ids, every one unpublished. Before it,
 * `unpublish` lets go of those of them the running lab publishes (through n8n main, which then drops their
 * webhooks); after it, `republish` publishes again those the save records as published. One whose webhook
 * path another published workflow holds stays unpublished and is named in one line: the other workflow is
 * the trainee's newer work, and restoring must not take its path away.
 */
import { N8nError, type PublicApi, type Workflow } from './client.js';
import { holderOf, webhooksOf } from './webhooks.js';

const show = (w: Pick<Workflow, 'id' | 'name'>) => `"${w.name}" (id ${w.id})`;

/** Unpublishes those of `ids` that are published now; returns how many. Unknown ids are passed over. */
export async function unpublishIds(api: PublicApi, ids: readonly string[]): Promise<number> {
  const wanted = new Set(ids);
  const published = (await api.listWorkflows({ active: true })).filter((w) => wanted.has(w.id));
  for (const w of published) await api.unpublish(w.id);
  return published.length;
}

/** Publishes each of `ids` (their latest version); one line each, none thrown for a webhook conflict. */
export async function republishIds(api: PublicApi, ids: readonly string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const id of ids) {
    const all = await api.listWorkflows();
    const workflow = all.find((w) => w.id === id);
    if (!workflow) {
      lines.push(`not found: workflow id ${id} is not in the lab after the import`);
      continue;
    }
    if (workflow.active) {
      lines.push(`published ${show(workflow)}`);
      continue;
    }
    const published = all.filter((w) => w.active);
    const conflict = webhooksOf(workflow.nodes)
      .map((listener) => ({ listener, holder: holderOf(published, listener, id) }))
      .find((c) => c.holder !== undefined);
    if (conflict?.holder) {
      lines.push(
        `restored unpublished: ${show(workflow)}: ${conflict.listener.method} /webhook/${conflict.listener.path} is held by the published workflow ${show(conflict.holder)}`,
      );
      continue;
    }
    try {
      await api.publish(id);
      lines.push(`published ${show(workflow)}`);
    } catch (err) {
      if (!(err instanceof N8nError) || err.status === null || err.status >= 500) throw err;
      lines.push(
        `restored unpublished: ${show(workflow)}: n8n refused to publish it (${err.n8nMessage ?? err.message})`,
      );
    }
  }
  return lines;
}
