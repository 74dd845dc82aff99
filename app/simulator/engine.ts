/**
 * Runs an n8n workflow export without n8n, node by node, as n8n 2.x runs the guide's workflows: its
 * Webhook, Code, If, HTTP Request, Wait and Stop and Error nodes, one item a node and one connection an
 * output. Anything outside that model (another node type, a second item, a fan-out, an operator it does
 * not know) ends the run with an error that says so: a workflow that leaves the model fails loudly
 * instead of being judged by a wrong one. A node setting outside the model (model.ts declares what it
 * models) refuses the run before any node runs, each such setting named. `make e2e` holds what it does equal to the pinned n8n.
 * The world is the run's `RunIo`: where requests go, how a Wait is resumed, the clock.
 */
import type { N8nExport, N8nExportNode } from '../workflow/export.js';
import { settingsOutsideModel } from './model.js';
import { type Helpers, items, Sandbox } from './sandbox.js';

export interface HttpCall {
  method: string;
  url: string;
  body?: unknown;
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  body: unknown;
}

/** A Wait node's resume: the request that resumed it, or its time limit reached. */
export type Resume = { headers: Record<string, string>; body: unknown } | 'timeout';

export interface RunIo {
  /** `$env`. */
  env: Readonly<Record<string, string>>;
  /** `$execution.resumeUrl`: the URL that resumes this run's Wait node. */
  resumeUrl: string;
  /** The run's clock (ms since the epoch): `new Date()` in its code. */
  now(): number;
  request(call: HttpCall): Promise<HttpAnswer>;
  /** The run waits at the Wait node `node` for its resume URL's POST, at most `limitSeconds` (null: no limit). */
  waitForResume(limitSeconds: number | null, node: { id: string; name: string }): Promise<Resume>;
  sleep(seconds: number): Promise<void>;
  /** Each node as it ends (its output is the item it handed on). */
  onNode?(step: NodeStep): void;
}

export interface NodeStep {
  /** The node's id in the export. */
  id: string;
  name: string;
  type: string;
  /** The item's json the node handed on; null when it errored. */
  output: unknown;
  /** The output it handed the item on (an If's false, an error output: 1). */
  branch: number;
  error: string | null;
  /** An HTTP Request node's URL as given (the expression, unresolved). */
  url: string | null;
}

export interface SimRun {
  status: 'success' | 'error';
  /** The error that ended the run (Stop and Error's message, a Code node's throw, a failed request). */
  error: string | null;
  steps: NodeStep[];
}

/** The webhook's item: what n8n's Webhook node outputs for a POST. */
export function webhookItem(headers: Record<string, string>, body: unknown) {
  return { headers, params: {}, query: {}, body };
}

class OutsideModel extends Error {}
class NodeError extends Error {}

interface IfCondition {
  leftValue: unknown;
  rightValue?: unknown;
  operator?: { type?: string; operation?: string };
}

const NUMBER_OPS: Record<string, (a: number, b: number) => boolean> = {
  equals: (a, b) => a === b,
  notEquals: (a, b) => a !== b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

/**
 * An If's one condition as n8n's If node (version 2, strict type validation) judges it: a value of
 * another type than the operator's is the node's error.
 */
function ifHolds(name: string, condition: IfCondition, left: unknown, right: unknown): boolean {
  const { type = 'boolean', operation = 'true' } = condition.operator ?? {};
  const wrong = () =>
    new NodeError(`${name}: Wrong type: '${JSON.stringify(left)}' is a ${typeof left}, not a ${type}`);
  if (type === 'boolean' && (operation === 'true' || operation === 'false')) {
    if (typeof left !== 'boolean') throw wrong();
    return left === (operation === 'true');
  }
  if (type === 'number' && operation in NUMBER_OPS) {
    if (typeof left !== 'number') throw wrong();
    if (typeof right !== 'number') throw new NodeError(`${name}: value2 is not a number`);
    return (NUMBER_OPS[operation] as (a: number, b: number) => boolean)(left, right);
  }
  if (type === 'string' && operation === 'equals') {
    if (typeof left !== 'string') throw wrong();
    return left === String(right);
  }
  throw new OutsideModel(`${name}: the simulator does not model the ${type} operation ${operation}`);
}

const SECONDS: Record<string, number> = { seconds: 1, minutes: 60, hours: 3600 };

function seconds(name: string, amount: unknown, unit: unknown): number {
  const factor = SECONDS[String(unit ?? 'seconds')];
  if (typeof amount !== 'number' || !Number.isFinite(amount) || factor === undefined)
    throw new NodeError(`${name}: the wait amount ${JSON.stringify(amount)} ${String(unit)} is not a time`);
  return amount * factor;
}

/** Runs `workflow` from its Webhook node on a POST of `body` with `headers`. */
export async function runWorkflow(
  workflow: N8nExport,
  trigger: { headers: Record<string, string>; body: unknown },
  io: RunIo,
): Promise<SimRun> {
  const byName = new Map(workflow.nodes.map((n) => [n.name, n]));
  const sandbox = new Sandbox(() => io.now());
  const outputs = new Map<string, unknown>();
  const runIndex = new Map<string, number>();
  const steps: NodeStep[] = [];
  const $ = (name: string) => {
    if (!byName.has(name)) throw new Error(`Referenced node doesn't exist: ${name}`);
    if (!outputs.has(name)) throw new Error(`Node '${name}' hasn't been executed`);
    return items(outputs.get(name));
  };
  const refused = settingsOutsideModel(workflow);
  if (refused.length > 0) return { status: 'error', error: refused.join('; '), steps };
  const webhooks = workflow.nodes.filter((n) => n.type === 'n8n-nodes-base.webhook');
  if (webhooks.length !== 1) {
    const error = `the simulator runs a workflow with one Webhook node, not ${webhooks.length}`;
    return { status: 'error', error, steps };
  }
  let current: N8nExportNode | undefined = webhooks[0];
  let input: unknown = null;
  for (let count = 0; current !== undefined; count += 1) {
    const node: N8nExportNode = current;
    const index = runIndex.get(node.name) ?? 0;
    runIndex.set(node.name, index + 1);
    const helpers: Helpers = {
      $,
      $input: items(input),
      $json: input,
      $runIndex: index,
      $env: io.env,
      $execution: { resumeUrl: io.resumeUrl, id: 'simulated' },
    };
    const param = (key: string) => sandbox.parameter(node.parameters[key], helpers);
    const url = node.type === 'n8n-nodes-base.httpRequest' ? String(node.parameters.url ?? '') : null;
    let output: unknown;
    let branch = 0;
    try {
      if (count >= 500) throw new OutsideModel('more than 500 node executions');
      switch (node.type) {
        case 'n8n-nodes-base.webhook':
          output = webhookItem(trigger.headers, trigger.body);
          break;
        case 'n8n-nodes-base.code': {
          const result = sandbox.code(String(node.parameters.jsCode ?? ''), helpers);
          if (!Array.isArray(result)) throw new NodeError(`${node.name}: Code doesn't return items properly`);
          if (result.length !== 1) throw new OutsideModel(`${node.name}: ${result.length} items, not one`);
          output = (result[0] as { json?: unknown }).json ?? result[0];
          break;
        }
        case 'n8n-nodes-base.if': {
          const { conditions } = node.parameters.conditions as { conditions: IfCondition[] };
          const [condition] = conditions;
          if (conditions.length !== 1 || condition === undefined)
            throw new OutsideModel(`${node.name}: ${conditions.length} conditions, not one`);
          const left = sandbox.parameter(condition.leftValue, helpers);
          const right = sandbox.parameter(condition.rightValue, helpers);
          branch = ifHolds(node.name, condition, left, right) ? 0 : 1;
          output = input;
          break;
        }
        case 'n8n-nodes-base.httpRequest':
          ({ output, branch } = await httpRequest(node, param, io));
          break;
        case 'n8n-nodes-base.wait':
          output = await wait(node, param, input, io);
          break;
        case 'n8n-nodes-base.stopAndError':
          throw new NodeError(String(param('errorMessage')));
        default:
          throw new OutsideModel(`${node.name}: the simulator does not model ${node.type}`);
      }
    } catch (error) {
      // A Code node's throw is an Error of the sandbox's realm: not `instanceof` this one's Error.
      const message =
        typeof error === 'object' && error !== null && 'message' in error
          ? String(error.message)
          : String(error);
      const step = {
        id: node.id,
        name: node.name,
        type: node.type,
        output: null,
        branch: 0,
        error: message,
        url,
      };
      steps.push(step);
      io.onNode?.(step);
      return { status: 'error', error: message, steps };
    }
    const step = { id: node.id, name: node.name, type: node.type, output, branch, error: null, url };
    steps.push(step);
    io.onNode?.(step);
    outputs.set(node.name, output);
    input = output;
    const next = workflow.connections[node.name]?.main[branch]?.map((c) => c.node) ?? [];
    if (next.length > 1) {
      const error = `${node.name}: ${next.length} connections on one output (the simulator runs one)`;
      return { status: 'error', error, steps };
    }
    current = next[0] === undefined ? undefined : byName.get(next[0]);
    if (next[0] !== undefined && current === undefined)
      return { status: 'error', error: `${node.name} connects to ${next[0]}, which is no node`, steps };
  }
  return { status: 'success', error: null, steps };
}

async function httpRequest(
  node: N8nExportNode,
  param: (key: string) => unknown,
  io: RunIo,
): Promise<{ output: unknown; branch: number }> {
  const p = node.parameters;
  const options = (p.options ?? {}) as { timeout?: number; response?: { response?: Json } };
  const call: HttpCall = {
    method: String(p.method ?? 'GET'),
    url: String(param('url')),
    timeoutMs: options.timeout ?? 300_000,
  };
  if (p.sendBody === true) {
    // Absent, n8n's Specify Body is its field list (not modelled); model.ts refuses any other value given.
    if (p.specifyBody !== 'json') throw new OutsideModel(`${node.name}: a body other than JSON`);
    const body = param('jsonBody');
    try {
      call.body = typeof body === 'string' ? JSON.parse(body) : body;
    } catch {
      throw new NodeError(`${node.name}: JSON parameter needs to be valid JSON`);
    }
  }
  const answer = await io.request(call);
  const response = options.response?.response ?? {};
  if (response.fullResponse === true) {
    if (answer.status >= 400 && response.neverError !== true) return failed(node, call, answer);
    return { output: { body: answer.body, headers: {}, statusCode: answer.status }, branch: 0 };
  }
  if (answer.status >= 400 && response.neverError !== true) return failed(node, call, answer);
  if (Array.isArray(answer.body)) throw new OutsideModel(`${node.name}: an array answer (many items)`);
  return { output: answer.body, branch: 0 };
}

type Json = Record<string, unknown>;

/** A request answered 4xx/5xx: the error output when the node has one, else the run's error. */
function failed(
  node: N8nExportNode,
  call: HttpCall,
  answer: HttpAnswer,
): { output: unknown; branch: number } {
  const message = `${call.method} ${call.url} answered ${answer.status}`;
  if (node.onError === 'continueErrorOutput')
    return { output: { error: { message, status: answer.status, body: answer.body } }, branch: 1 };
  throw new NodeError(`${node.name}: ${message}`);
}

async function wait(
  node: N8nExportNode,
  param: (key: string) => unknown,
  input: unknown,
  io: RunIo,
): Promise<unknown> {
  const p = node.parameters;
  if (p.resume === 'webhook') {
    if (p.httpMethod !== 'POST') throw new OutsideModel(`${node.name}: a resume other than POST`);
    const limit =
      p.limitWaitTime === true
        ? p.limitType === 'afterTimeInterval'
          ? seconds(node.name, param('resumeAmount'), p.resumeUnit)
          : null
        : null;
    if (p.limitWaitTime === true && limit === null)
      throw new OutsideModel(`${node.name}: a limit other than a time interval`);
    const resumed = await io.waitForResume(limit, { id: node.id, name: node.name });
    // n8n goes on with the input item when the time limit is reached.
    return resumed === 'timeout' ? input : webhookItem(resumed.headers, resumed.body);
  }
  if (p.resume === 'timeInterval') {
    await io.sleep(seconds(node.name, param('amount'), p.unit));
    return input;
  }
  throw new OutsideModel(`${node.name}: a Wait that resumes on ${String(p.resume)}`);
}
