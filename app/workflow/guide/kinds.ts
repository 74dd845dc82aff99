/**
 * The node kinds of the trainee guide, in the guide's words: each constructor takes what a stage's table
 * gives (a Method, a URL, an If's value1 and operator...) and returns the n8n node the editor makes of it
 * and the `facts`, the literal pieces of the guide's table row that say so. A test holds every row of
 * docs/trainee-guide.md equal to its node's facts; the n8n side is what the offline checker and the pinned
 * n8n run. Nothing here imports more than types: the lab's image runs it as compiled JavaScript (starters).
 */

export type Json = Record<string, unknown>;

/** The guide's name of a node kind (its table's "kind" column). */
export type KindTitle = 'Webhook' | 'Code' | 'If' | 'HTTP Request' | 'Wait' | 'Stop and Error';

/** An output of a node by the guide's label: an If's `true` / `false`, an error output's `Error`. */
export type OutputLabel = 'main' | 'true' | 'false' | 'Error';

export interface Link {
  output: OutputLabel;
  to: string;
}

export interface GuideNode {
  name: string;
  kind: KindTitle;
  type: string;
  typeVersion: number;
  /** On a grid of 220 x 180 editor pixels. */
  position: [number, number];
  parameters: Json;
  /** The connections the guide declares with this node: from it (`next`), or into it (`after`). */
  next: Link[];
  after?: { from: string; output: OutputLabel };
  /** The literal pieces of the node's table row, its connections' included. */
  facts: string[];
  /** The text of the guide's code block for this node (a Code node's JavaScript, an HTTP node's JSON). */
  block?: string;
}

/** The output index of a label: an If's false and an error output are output 1. */
export function outputIndex(label: OutputLabel): number {
  return label === 'false' || label === 'Error' ? 1 : 0;
}

/** How the guide writes a connection from a node (`*true* → **Enrich**`) or into one. */
export function linkFact(link: Link): string {
  return link.output === 'main' ? `→ **${link.to}**` : `*${link.output}* → **${link.to}**`;
}

export function afterFact(after: { from: string; output: OutputLabel }): string {
  return after.output === 'main'
    ? `after **${after.from}**`
    : `on **${after.from}**'s *${after.output}* output`;
}

/** `{{ x }}` as an n8n parameter value: an expression. */
const expr = (text: string) => `=${text}`;

type Place = { position: [number, number]; next?: Link[]; after?: GuideNode['after'] };

function node(
  name: string,
  kind: KindTitle,
  n8n: { type: string; typeVersion: number; parameters: Json },
  place: Place,
  facts: string[],
  block?: string,
): GuideNode {
  const next = place.next ?? [];
  const links = [...(place.after ? [afterFact(place.after)] : []), ...next.map(linkFact)];
  return {
    name,
    kind,
    ...n8n,
    position: place.position,
    next,
    ...(place.after ? { after: place.after } : {}),
    facts: [...facts, ...links],
    ...(block === undefined ? {} : { block }),
  };
}

export function webhook(path: string, place: Place): GuideNode {
  return node(
    'Webhook',
    'Webhook',
    {
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2.1,
      parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
    },
    place,
    ['*HTTP Method* `POST`', `*Path* \`${path}\``, '*Authentication* *None*', '*Respond* *Immediately*'],
  );
}

/** A Code node; `inline` code stands in its row, other code in the block after the table. */
export function code(name: string, jsCode: string, place: Place, inline = false): GuideNode {
  const n8n = { type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode } };
  return inline
    ? node(name, 'Code', n8n, place, [`\`${jsCode}\``])
    : node(name, 'Code', n8n, place, [], jsCode);
}

/** The operators the guide names: its words, and n8n's. */
const OPERATORS = {
  'Boolean → is true': { type: 'boolean', operation: 'true', singleValue: true },
  'Boolean → is false': { type: 'boolean', operation: 'false', singleValue: true },
  'Number → is equal to': { type: 'number', operation: 'equals' },
  'Number → is greater than or equal to': { type: 'number', operation: 'gte' },
  'Number → is less than': { type: 'number', operation: 'lt' },
  'String → is equal to': { type: 'string', operation: 'equals' },
} as const;
export type Operator = keyof typeof OPERATORS;

/** An If on one condition, as the editor stores it: value1, the operator, value2 when there is one. */
export function iff(
  name: string,
  condition: { value1: string; operator: Operator; value2?: number | string },
  place: Place,
): GuideNode {
  const [typeWord, opWord] = condition.operator.split(' → ');
  const facts = [`*value1* \`${condition.value1}\``, `*${typeWord}* → *${opWord}*`];
  if (condition.value2 !== undefined) facts.push(`*value2* \`${condition.value2}\``);
  const parameters = {
    conditions: {
      options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
      conditions: [
        {
          id: '',
          leftValue: expr(condition.value1),
          rightValue: condition.value2 ?? '',
          operator: OPERATORS[condition.operator],
        },
      ],
      combinator: 'and',
    },
    options: {},
  };
  return node(name, 'If', { type: 'n8n-nodes-base.if', typeVersion: 2.2, parameters }, place, facts);
}

/** The guide's "status as data" options, and how its rows say them. */
const STATUS_AS_DATA = 'status as data: *Include Response Headers and Status* and *Never Error* on';

/**
 * An HTTP Request: `json` is the JSON body's expression, shown in the row (`inline`) or in a block after
 * the table; `statusAsData` the response options; `onError` Record's error output (stage 10).
 */
export function http(
  name: string,
  request: { method: string; url: string; json?: string; inline?: boolean; statusAsData?: boolean },
  place: Place,
): GuideNode {
  const parameters: Json = { method: request.method, url: expr(request.url) };
  const facts = [`*Method* \`${request.method}\``, `*URL* \`${request.url}\``];
  let block: string | undefined;
  if (request.json !== undefined) {
    Object.assign(parameters, { sendBody: true, specifyBody: 'json', jsonBody: expr(request.json) });
    if (request.inline === true) facts.push(`*JSON* \`${request.json}\``);
    else block = request.json;
  }
  parameters.options = request.statusAsData
    ? { response: { response: { fullResponse: true, neverError: true } } }
    : {};
  if (request.statusAsData) facts.push(STATUS_AS_DATA);
  return node(
    name,
    'HTTP Request',
    { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, parameters },
    place,
    facts,
    block,
  );
}

/** The Wait node that takes the approver's POST, within a time limit of `amount` seconds. */
export function waitForWebhook(name: string, amount: string, place: Place): GuideNode {
  return node(
    name,
    'Wait',
    {
      type: 'n8n-nodes-base.wait',
      typeVersion: 1.1,
      parameters: {
        resume: 'webhook',
        httpMethod: 'POST',
        limitWaitTime: true,
        limitType: 'afterTimeInterval',
        resumeAmount: expr(amount),
        resumeUnit: 'seconds',
        options: {},
      },
    },
    place,
    [
      '*Resume* *On Webhook Call*',
      '*Authentication* *None*',
      '*HTTP Method* `POST`',
      '*Response Code* `200`',
      '*Respond* *Immediately*',
      '*Limit Wait Time* on',
      '*Limit Type* *After Time Interval*',
      `*Amount* \`${amount}\``,
      '*Unit* *Seconds*',
    ],
  );
}

/** A Wait node that waits `seconds`. */
export function waitSeconds(name: string, seconds: number, place: Place): GuideNode {
  return node(
    name,
    'Wait',
    {
      type: 'n8n-nodes-base.wait',
      typeVersion: 1.1,
      parameters: { resume: 'timeInterval', amount: seconds, unit: 'seconds' },
    },
    place,
    ['*Resume* *After Time Interval*', `*Wait Amount* \`${seconds}\``, '*Wait Unit* *Seconds*'],
  );
}

/** A Stop and Error node with its message (an expression when it holds `{{ }}`). */
export function stop(name: string, message: string, place: Place): GuideNode {
  const errorMessage = message.includes('{{') ? expr(message) : message;
  return node(
    name,
    'Stop and Error',
    {
      type: 'n8n-nodes-base.stopAndError',
      typeVersion: 1,
      parameters: { errorType: 'errorMessage', errorMessage },
    },
    place,
    [`*Error Message* \`${message}\``],
  );
}
