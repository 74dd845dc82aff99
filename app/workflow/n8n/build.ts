/**
 * The node-centric builder of n8n export JSON. Each node is declared once, with its position and its
 * outgoing connections; `buildWorkflow` fills in deterministic ids, checks that every connection and
 * every `$('Node name')` reference names a node of the workflow, and applies a variant's overrides.
 */
import { DEFAULT_MOCK_API_URL } from '../constants.js';
import { codeNodeSource } from './js-source.js';

export type Json = Record<string, unknown>;

/** A node as declared: `next[i]` are the nodes output i leads to (an IF: 0 true, 1 false). */
export interface NodeSpec {
  name: string;
  type: string;
  typeVersion: number;
  /** On a grid of 220 x 160 editor pixels. */
  position: [number, number];
  parameters: Json;
  next: string[][];
}

/**
 * A variant changes nodes of the reference by name: the fields given replace the node's (for a Code node
 * `{ parameters: codeParameters('my-variant.ts') }`), or a function returns the changed node.
 */
export type NodeOverride = Partial<Omit<NodeSpec, 'name'>> | ((node: NodeSpec) => NodeSpec);
export type Overrides = Record<string, NodeOverride>;

export interface N8nExportNode {
  id: string;
  name: string;
  type: string;
  typeVersion: number;
  position: [number, number];
  webhookId?: string;
  parameters: Json;
}

export interface N8nExport {
  id: string;
  name: string;
  active: boolean;
  settings: Json;
  nodes: N8nExportNode[];
  connections: Record<string, { main: { node: string; type: 'main'; index: number }[][] }>;
  pinData: Json;
  meta: Json;
  tags: string[];
}

/** The one base-URL setting: every HTTP Request node's URL starts with this expression. */
export const API = "{{ $('Settings').first().json.api }}";

// ---------------------------------------------------------------------------------------------------
// Node kinds

const one = (next: string | undefined): string[][] => (next === undefined ? [] : [[next]]);

export function webhook(path: string, position: [number, number], next: string): NodeSpec {
  return {
    name: 'Webhook',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2.1,
    position,
    parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
    next: one(next),
  };
}

/** The Set node that reads the environment once, at the start of the run. */
export function settings(position: [number, number], next: string, extra: Json[] = []): NodeSpec {
  return {
    name: 'Settings',
    type: 'n8n-nodes-base.set',
    typeVersion: 3.4,
    position,
    parameters: {
      mode: 'manual',
      assignments: {
        assignments: [
          {
            name: 'api',
            value: `={{ String($env.MOCK_API_URL || '${DEFAULT_MOCK_API_URL}').replace(/\\/+$/, '') }}`,
            type: 'string',
          },
          ...extra,
        ],
      },
      options: {},
    },
    next: one(next),
  };
}

/** The parameters of a Code node whose body is the exported function of `file` (in ./code/, or a path). */
export function codeParameters(file: string): Json {
  return { mode: 'runOnceForAllItems', jsCode: codeNodeSource(file) };
}

export function code(name: string, position: [number, number], file: string, next: string): NodeSpec {
  return {
    name,
    type: 'n8n-nodes-base.code',
    typeVersion: 2,
    position,
    parameters: codeParameters(file),
    next: one(next),
  };
}

/** An IF node on one boolean expression: `then` is output 0 (true), `otherwise` output 1. */
export function iff(
  name: string,
  position: [number, number],
  expression: string,
  then: string,
  otherwise: string,
): NodeSpec {
  return {
    name,
    type: 'n8n-nodes-base.if',
    typeVersion: 2.2,
    position,
    parameters: {
      conditions: {
        options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
        conditions: [
          {
            id: '',
            leftValue: `={{ ${expression} }}`,
            rightValue: true,
            operator: { type: 'boolean', operation: 'true', singleValue: true },
          },
        ],
        combinator: 'and',
      },
      looseTypeValidation: true,
      options: {},
    },
    next: [[then], [otherwise]],
  };
}

/**
 * An HTTP Request node to the mock API: bounded, and (with `full`, the default) status codes exposed as
 * data instead of thrown. `body` is a JavaScript expression sent as JSON.
 */
export function http(
  name: string,
  position: [number, number],
  request: { method: string; path: string; body?: string; full?: boolean },
  next?: string,
): NodeSpec {
  const parameters: Json = { method: request.method, url: `=${API}${request.path}` };
  if (request.body !== undefined) {
    parameters.sendBody = true;
    parameters.specifyBody = 'json';
    parameters.jsonBody = `={{ JSON.stringify(${request.body}) }}`;
  }
  const options: Json = { timeout: 10000 };
  if (request.full ?? true) options.response = { response: { fullResponse: true, neverError: true } };
  parameters.options = options;
  return {
    name,
    type: 'n8n-nodes-base.httpRequest',
    typeVersion: 4.2,
    position,
    parameters,
    next: one(next),
  };
}

export function stop(name: string, position: [number, number], errorMessage: string): NodeSpec {
  return {
    name,
    type: 'n8n-nodes-base.stopAndError',
    typeVersion: 1,
    position,
    parameters: { errorType: 'errorMessage', errorMessage },
    next: [],
  };
}

export function wait(name: string, position: [number, number], parameters: Json, next: string): NodeSpec {
  return { name, type: 'n8n-nodes-base.wait', typeVersion: 1.1, position, parameters, next: one(next) };
}

export function noOp(name: string, position: [number, number]): NodeSpec {
  return { name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position, parameters: {}, next: [] };
}

// ---------------------------------------------------------------------------------------------------
// The workflow

/** Deterministic UUID-shaped ids, so regenerating gives the same file. */
function uid(workflow: number, n: number): string {
  return `5e1f0000-0000-4000-8000-${(workflow * 1000 + n).toString(16).padStart(12, '0')}`;
}

/** Every `$('Name')` / `$("Name")` in a text. */
export function nodeReferences(text: string): string[] {
  return [...text.matchAll(/\$\(\s*(['"])(.*?)\1\s*\)/g)].map((m) => m[2] as string);
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
}

export function applyOverrides(nodes: NodeSpec[], overrides: Overrides = {}): NodeSpec[] {
  const names = new Set(nodes.map((n) => n.name));
  for (const name of Object.keys(overrides)) {
    if (!names.has(name)) throw new Error(`override of ${name}: the workflow has no such node`);
  }
  return nodes.map((node) => {
    const override = overrides[node.name];
    if (override === undefined) return node;
    return typeof override === 'function' ? override(structuredClone(node)) : { ...node, ...override };
  });
}

/** The export JSON of a workflow; throws on a connection or a `$('...')` that names no node. */
export function buildWorkflow(spec: {
  id: string;
  name: string;
  number: number;
  nodes: NodeSpec[];
}): N8nExport {
  const names = new Set<string>();
  for (const n of spec.nodes) {
    if (names.has(n.name)) throw new Error(`${spec.name}: two nodes named ${n.name}`);
    names.add(n.name);
  }
  const problems: string[] = [];
  for (const n of spec.nodes) {
    for (const to of n.next.flat())
      if (!names.has(to)) problems.push(`${n.name} connects to ${to}, which is no node`);
    for (const ref of strings(n.parameters).flatMap(nodeReferences))
      if (!names.has(ref)) problems.push(`${n.name}: $('${ref}') names no node`);
  }
  if (problems.length > 0) throw new Error(`${spec.name}: ${problems.join('; ')}`);

  const nodes = spec.nodes.map((node, i): N8nExportNode => {
    const n = i + 1;
    const hasWebhook = node.type === 'n8n-nodes-base.webhook' || node.type === 'n8n-nodes-base.wait';
    const parameters = structuredClone(node.parameters) as {
      assignments?: { assignments?: Json[] };
      conditions?: { conditions?: Json[] };
    };
    for (const a of parameters.assignments?.assignments ?? []) a.id = uid(spec.number, 200 + n);
    for (const c of parameters.conditions?.conditions ?? []) c.id = uid(spec.number, 300 + n);
    return {
      id: uid(spec.number, n),
      name: node.name,
      type: node.type,
      typeVersion: node.typeVersion,
      position: [node.position[0] * 220, node.position[1] * 160],
      ...(hasWebhook ? { webhookId: uid(spec.number, 100 + n) } : {}),
      parameters,
    };
  });
  const connections: N8nExport['connections'] = {};
  for (const node of spec.nodes) {
    if (node.next.length === 0) continue;
    connections[node.name] = {
      main: node.next.map((targets) => targets.map((to) => ({ node: to, type: 'main' as const, index: 0 }))),
    };
  }
  return {
    id: spec.id,
    name: spec.name,
    active: false,
    settings: {
      executionOrder: 'v1',
      saveDataErrorExecution: 'all',
      saveDataSuccessExecution: 'all',
      saveExecutionProgress: true,
      saveManualExecutions: true,
    },
    nodes,
    connections,
    pinData: {},
    meta: { templateCredsSetupCompleted: true },
    tags: [],
  };
}

/** The file text of an export: what the generator writes and the drift check compares. */
export function exportText(workflow: N8nExport): string {
  return `${JSON.stringify(workflow, null, 2)}\n`;
}
