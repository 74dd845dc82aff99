/**
 * Runs a generated n8n workflow (the export JSON) without n8n, node by node: Code nodes' jsCode and every
 * `{{ expression }}` run in `node:vm` with n8n's helpers stubbed ($, $input, $json, $runIndex, $env,
 * $execution), HTTP Request nodes ask a scripted API, the Wait node takes a scripted approval. It models
 * only what these workflows use (one item per node, one connection per output); anything else throws,
 * so a workflow that leaves that model fails loudly instead of being judged by a wrong model.
 * The real n8n runs the same JSON in `make e2e`.
 */
import vm from 'node:vm';
import type { N8nNode, N8nWorkflow } from './checks.js';

export interface ApiCall {
  method: string;
  path: string;
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** The scripted mock API and approver of one scenario. */
export interface Script {
  api(call: ApiCall): ApiAnswer;
  /** The approver's POST body, or 'timeout'. */
  approval: { body: unknown } | 'timeout';
}

export interface SimRun {
  /** Every request the workflow made, in order. */
  calls: ApiCall[];
  /** success, or the error that ended the run (Stop and Error, a Code node's throw, a failed request). */
  result: 'success' | { error: string };
  /** Each node's last output item, by name. */
  outputs: Map<string, unknown>;
  /** The nodes run, in order; an IF as `Name#0` (true) or `Name#1` (false). */
  path: string[];
}

export const SIM_API = 'http://api.sim';
export const SIM_RESUME_URL = 'http://n8n.sim/webhook-waiting/1?signature=ab';

/** The moment every `new Date()` of a simulated run shows (the TypeScript side uses the same). */
export function fixedDate(iso: string): DateConstructor {
  const at = Date.parse(iso);
  class FixedDate extends Date {
    constructor(...args: []) {
      if (args.length === 0) super(at);
      else super(...(args as unknown as [number]));
    }
    static override now() {
      return at;
    }
  }
  return FixedDate as DateConstructor;
}

interface Helpers {
  [name: string]: unknown;
}

const scripts = new Map<string, vm.Script>();

/** Runs JavaScript in the run's context with `globals` set; the result is copied out as JSON (as n8n does). */
function inVm(code: string, globals: Helpers, context: vm.Context): unknown {
  Object.assign(context, globals);
  let script = scripts.get(code);
  if (script === undefined) {
    script = new vm.Script(code);
    scripts.set(code, script);
  }
  const value = script.runInContext(context, { timeout: 2000 });
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

function items(json: unknown) {
  return { first: () => ({ json }), all: () => [{ json }] };
}

/** The value of one expression parameter: `={{ x }}` is x itself, anything else a template. */
function expression(text: string, helpers: Helpers, context: vm.Context): unknown {
  if (!text.startsWith('=')) return text;
  const body = text.slice(1);
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(body);
  if (whole && !whole[1]?.includes('}}')) return inVm(`(${whole[1]})`, helpers, context);
  return body.replace(/\{\{([\s\S]*?)\}\}/g, (_m, e: string) => String(inVm(`(${e})`, helpers, context)));
}

class StopAndError extends Error {}

interface IfCondition {
  leftValue: string;
  rightValue?: unknown;
  operator?: { type: string; operation: string };
}

/**
 * An If's one condition, as n8n 2.x's If node (version 2) judges it: a boolean `true` / `false` on a
 * boolean, a number's `equals` / `gte` / `lt`, a string's `equals`. A value of another type than the
 * operator's is an error, as n8n's strict type validation makes it.
 */
function ifHolds(name: string, condition: IfCondition, value: unknown): boolean {
  const { type = 'boolean', operation = 'true' } = condition.operator ?? {};
  const wrong = () => new Error(`${name}: condition is ${JSON.stringify(value)}, not a ${type}`);
  const right = condition.rightValue;
  if (type === 'boolean') {
    if (typeof value !== 'boolean') throw wrong();
    if (operation === 'true' || operation === 'false') return value === (operation === 'true');
  } else if (type === 'number') {
    if (typeof value !== 'number' || typeof right !== 'number') throw wrong();
    if (operation === 'equals') return value === right;
    if (operation === 'gte') return value >= right;
    if (operation === 'lt') return value < right;
  } else if (type === 'string') {
    if (typeof value !== 'string' || typeof right !== 'string') throw wrong();
    if (operation === 'equals') return value === right;
  }
  throw new Error(`${name}: the simulator does not model the ${type} operation ${operation}`);
}

export function simulate(
  wf: N8nWorkflow,
  payload: unknown,
  script: Script,
  opts: { now: string; env?: Record<string, string> },
): SimRun {
  const byName = new Map(wf.nodes.map((n) => [n.name, n]));
  const outputs = new Map<string, unknown>();
  const context = vm.createContext({ Date: fixedDate(opts.now) });
  const runs = new Map<string, number>();
  const calls: ApiCall[] = [];
  const path: string[] = [];
  const env = { MOCK_API_URL: SIM_API, ...opts.env };
  const $ = (name: string) => {
    if (!outputs.has(name)) throw new Error(`$('${name}'): that node has not run`);
    return items(outputs.get(name));
  };
  const webhook = wf.nodes.find((n) => n.type === 'n8n-nodes-base.webhook');
  if (!webhook) throw new Error('no webhook');
  let current: N8nNode | undefined = webhook;
  let input: unknown = null;
  try {
    for (let step = 0; current !== undefined; step += 1) {
      if (step > 500) throw new Error('more than 500 node executions');
      const n: N8nNode = current;
      const runIndex = runs.get(n.name) ?? 0;
      runs.set(n.name, runIndex + 1);
      const helpers: Helpers = {
        $,
        $input: items(input),
        $json: input,
        $runIndex: runIndex,
        $env: env,
        $execution: { resumeUrl: SIM_RESUME_URL },
      };
      const param = (key: string) => expression(String(n.parameters[key] ?? ''), helpers, context);
      let output: unknown;
      let branch = 0;
      switch (n.type) {
        case 'n8n-nodes-base.webhook':
          output = { headers: { 'content-type': 'application/json' }, params: {}, query: {}, body: payload };
          break;
        case 'n8n-nodes-base.set': {
          const assignments = (n.parameters.assignments as { assignments: { name: string; value: string }[] })
            .assignments;
          const out: Record<string, unknown> = {};
          for (const a of assignments) out[a.name] = expression(a.value, helpers, context);
          output = out;
          break;
        }
        case 'n8n-nodes-base.code': {
          const result = inVm(`(() => {\n${String(n.parameters.jsCode)}\n})()`, helpers, context);
          if (!Array.isArray(result) || result.length !== 1) throw new Error(`${n.name}: not one item`);
          output = (result[0] as { json: unknown }).json;
          break;
        }
        case 'n8n-nodes-base.if': {
          const conditions = n.parameters.conditions as { conditions: IfCondition[] };
          if (conditions.conditions.length !== 1) throw new Error(`${n.name}: one condition expected`);
          const [condition] = conditions.conditions;
          if (condition === undefined) throw new Error(`${n.name}: no condition`);
          const value = expression(String(condition.leftValue), helpers, context);
          branch = ifHolds(n.name, condition, value) ? 0 : 1;
          output = input;
          break;
        }
        case 'n8n-nodes-base.httpRequest': {
          const url = String(param('url'));
          if (!url.startsWith(SIM_API)) throw new Error(`${n.name}: ${url} is not on the API`);
          const call: ApiCall = { method: String(n.parameters.method), path: url.slice(SIM_API.length) };
          if (n.parameters.sendBody === true) call.body = JSON.parse(String(param('jsonBody')));
          calls.push(call);
          const answer = script.api(call);
          const options = n.parameters.options as { response?: unknown };
          if (options.response !== undefined) {
            output = { statusCode: answer.status, body: answer.body, headers: {} };
          } else if (answer.status >= 200 && answer.status < 300) output = answer.body;
          else if (n.onError === 'continueErrorOutput') {
            // n8n hands the failed item on the error output (output 1), the error under `error`.
            output = { error: { message: `${answer.status}`, status: answer.status, body: answer.body } };
            branch = 1;
          } else throw new Error(`${n.name}: ${call.method} ${call.path} answered ${answer.status}`);
          break;
        }
        case 'n8n-nodes-base.wait':
          if (n.parameters.resume === 'webhook') {
            output =
              script.approval === 'timeout'
                ? input
                : {
                    headers: { 'content-type': 'application/json' },
                    params: {},
                    query: {},
                    body: script.approval.body,
                  };
          } else output = input;
          break;
        case 'n8n-nodes-base.stopAndError':
          path.push(n.name);
          throw new StopAndError(String(param('errorMessage')));
        case 'n8n-nodes-base.noOp':
          output = input;
          break;
        default:
          throw new Error(`${n.name}: the simulator does not model ${n.type}`);
      }
      path.push(n.type === 'n8n-nodes-base.if' ? `${n.name}#${branch}` : n.name);
      outputs.set(n.name, output);
      input = output;
      const next: string[] = wf.connections[n.name]?.main[branch]?.map((c) => c.node) ?? [];
      if (next.length > 1) throw new Error(`${n.name}: more than one connection on an output`);
      current = next[0] === undefined ? undefined : byName.get(next[0]);
      if (next[0] !== undefined && current === undefined) throw new Error(`${n.name}: no node ${next[0]}`);
    }
    return { calls, result: 'success', outputs, path };
  } catch (error) {
    return { calls, result: { error: (error as Error).message }, outputs, path };
  }
}
