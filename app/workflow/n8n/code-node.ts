/**
 * The part of n8n's Code-node sandbox the workflow's Code nodes use ("Run Once for All Items"), typed so
 * that their bodies in ./code/ are type-checked like the rest. n8n passes nothing in: the generator ends
 * each node's jsCode with `return <node function>({ $, $input });`, handing over n8n's own helpers.
 */

/** One item of a node's output. */
export interface Item<T = unknown> {
  json: T;
}

/** A node's output items: `$('Name')` (another node's) or `$input` (this node's input). */
export interface NodeItems {
  first<T = unknown>(): Item<T>;
  all<T = unknown>(): Item<T>[];
}

export interface N8nHelpers {
  /** `$('Validate')`: the output of an earlier node of this run, by name (checked by the generator). */
  $(nodeName: string): NodeItems;
  $input: NodeItems;
}

/** A Code node body: n8n's helpers in, the output items out. */
export type CodeNodeFunction = (n8n: N8nHelpers) => Item[];

/** An HTTP Request node's output with `fullResponse` + `neverError`: the status is data. */
export interface HttpAnswer {
  statusCode: number;
  body: unknown;
  headers?: Record<string, unknown>;
}
