/**
 * The shape of an n8n workflow export (what `n8n export:workflow` writes and the editor pastes): the
 * guide's workflows are built as these, the simulator runs them, the n8n client publishes them.
 */

export type Json = Record<string, unknown>;

export interface N8nExportNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  webhookId?: string;
  /** `continueErrorOutput`: a failure goes on output 1 (the error output) instead of ending the run. */
  onError?: string;
  parameters: Json;
}

export interface N8nConnection {
  node: string;
  type: 'main';
  index: number;
}

export interface N8nExport {
  id: string;
  name: string;
  active: boolean;
  settings: Json;
  nodes: N8nExportNode[];
  connections: Record<string, { main: N8nConnection[][] }>;
  pinData: Json;
  meta: Json;
  tags: string[];
}

/** The file text of an export: what the generator writes and the drift check compares. */
export function exportText(workflow: N8nExport): string {
  return `${JSON.stringify(workflow, null, 2)}\n`;
}

/** Every `$('Name')` / `$("Name")` in a text. */
export function nodeReferences(text: string): string[] {
  return [...text.matchAll(/\$\(\s*(['"])(.*?)\1\s*\)/g)].map((m) => m[2] ?? '');
}
