/**
 * What the simulator models of each node, declared once: every setting of a node (its own fields and its
 * parameters) that the engine (engine.ts) either runs as n8n does or that changes nothing in a run. A
 * setting outside this list (a disabled node, retry on fail, continue on error, an HTTP Request's query,
 * headers, authentication or response format, a Webhook's options, ...) would be run as if it were absent,
 * which n8n does not do: `settingsOutsideModel` names each, and the engine refuses the workflow with them.
 * Each setting is allowed as: `true` any value; a list, one of those values; an object, a nested object
 * whose keys follow the same rules. A setting absent is always allowed (n8n's default, which is modelled).
 */
import type { N8nExport, N8nExportNode } from '../workflow/export.js';

type Rule = true | readonly unknown[] | { readonly [key: string]: Rule };

/** A node's own fields (not its parameters), whatever its type. */
const NODE_FIELDS: Readonly<Record<string, Rule>> = {
  id: true,
  name: true,
  type: true,
  typeVersion: true,
  position: true,
  webhookId: true,
  notes: true,
  notesInFlow: true,
  // Settings whose default is modelled and nothing else.
  disabled: [false],
  retryOnFail: [false],
  alwaysOutputData: [false],
  executeOnce: [false],
  continueOnFail: [false],
  onError: ['stopWorkflow'],
};

const HTTP_RESPONSE = { response: { response: { fullResponse: [true, false], neverError: [true, false] } } };

/** Each node type the engine runs: its parameters, and its own fields beyond NODE_FIELDS. */
export const MODEL: Readonly<
  Record<
    string,
    {
      parameters: Readonly<Record<string, Rule>>;
      fields?: Readonly<Record<string, Rule>>;
      /** Parameters whose n8n default is not modelled: absent, they are refused too. */
      required?: readonly string[];
    }
  >
> = {
  'n8n-nodes-base.webhook': {
    // Absent, n8n's HTTP Method is GET: the simulator's webhooks answer POST only.
    required: ['httpMethod', 'path'],
    parameters: {
      httpMethod: ['POST'],
      path: true,
      responseMode: ['onReceived'],
      authentication: ['none'],
      options: {},
    },
  },
  'n8n-nodes-base.code': {
    parameters: { jsCode: true, mode: ['runOnceForAllItems'], language: ['javaScript'] },
  },
  'n8n-nodes-base.if': {
    parameters: {
      conditions: {
        options: { caseSensitive: [true], leftValue: true, typeValidation: ['strict'], version: true },
        conditions: true,
        combinator: ['and', 'or'],
      },
      looseTypeValidation: [false],
      options: {},
    },
  },
  'n8n-nodes-base.httpRequest': {
    parameters: {
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: true,
      authentication: ['none'],
      sendQuery: [false],
      sendHeaders: [false],
      sendBody: [true, false],
      contentType: ['json'],
      specifyBody: ['json'],
      jsonBody: true,
      options: { timeout: true, ...HTTP_RESPONSE },
    },
    fields: { onError: ['stopWorkflow', 'continueErrorOutput'] },
  },
  'n8n-nodes-base.wait': {
    parameters: {
      resume: ['webhook', 'timeInterval'],
      httpMethod: ['POST'],
      incomingAuthentication: ['none'],
      responseMode: ['onReceived'],
      limitWaitTime: [true, false],
      limitType: ['afterTimeInterval'],
      resumeAmount: true,
      resumeUnit: ['seconds', 'minutes', 'hours'],
      amount: true,
      unit: ['seconds', 'minutes', 'hours'],
      options: {},
    },
  },
  'n8n-nodes-base.stopAndError': {
    parameters: { errorType: ['errorMessage'], errorMessage: true },
  },
};

/** The settings of `value` (at `path`) that `rule` does not allow, as `path = value`. */
function outside(rule: Rule, value: unknown, path: string): string[] {
  if (rule === true) return [];
  if (Array.isArray(rule)) return rule.some((v) => Object.is(v, value)) ? [] : [`${path} = ${shown(value)}`];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [`${path} = ${shown(value)}`];
  const rules = rule as Readonly<Record<string, Rule>>;
  return Object.entries(value).flatMap(([key, v]) => {
    const inner = Object.hasOwn(rules, key) ? rules[key] : undefined;
    const at = path === '' ? key : `${path}.${key}`;
    return inner === undefined ? [`${at} = ${shown(v)}`] : outside(inner, v, at);
  });
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * The settings of `node` outside the model, each `setting = value` (parameters as `parameters.<key>`);
 * none for a node type the engine does not run at all (the engine names that when the run reaches it).
 */
export function nodeSettingsOutsideModel(node: N8nExportNode): string[] {
  const model = MODEL[node.type];
  if (model === undefined) return [];
  const { parameters, ...fields } = node;
  return [
    ...outside({ ...NODE_FIELDS, ...model.fields, parameters: true }, fields, ''),
    ...outside(model.parameters, parameters, 'parameters'),
    ...(model.required ?? [])
      .filter((key) => !Object.hasOwn(parameters, key))
      .map((key) => `parameters.${key} absent (n8n's default)`),
  ];
}

/** Every node's settings outside the model, one `Node: the simulator does not model ...` line each. */
export function settingsOutsideModel(workflow: N8nExport): string[] {
  return workflow.nodes.flatMap((node) =>
    nodeSettingsOutsideModel(node).map(
      (setting) => `${node.name}: the simulator does not model the setting ${setting}`,
    ),
  );
}
