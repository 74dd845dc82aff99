/**
 * The mock API's fields, readable in a browser: every operation with its request fields (name, type,
 * required, limits, description) and its answers, drawn on the server from the OpenAPI document. No
 * script; the console's stylesheet.
 */
import { html } from 'hono/html';
import type { MockApiDocument } from './mock-api-document.js';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v))
    : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  rules: string;
  description: string;
}

const METHODS = ['get', 'post', 'delete'] as const;

export function renderFields(document: MockApiDocument) {
  const components = obj(obj(document.components)?.schemas) ?? {};
  const responses = obj(obj(document.components)?.responses) ?? {};
  const resolve = (schema: unknown): Json | undefined => {
    const s = obj(schema);
    const ref = str(s?.$ref);
    if (ref === undefined) return s;
    return obj(ref.startsWith('#/components/schemas/') ? components[ref.split('/').pop() ?? ''] : undefined);
  };
  const refName = (schema: unknown) => str(obj(schema)?.$ref)?.split('/').pop();

  function typeOf(schema: Json | undefined): string {
    if (schema === undefined) return 'any';
    const named = refName(schema);
    if (named !== undefined) return named;
    const any = list(schema.anyOf ?? schema.oneOf).map((s) => typeOf(obj(s)));
    if (any.length > 0) return [...new Set(any)].join(' | ');
    if (schema.enum !== undefined)
      return list(schema.enum)
        .map((v) => JSON.stringify(v))
        .join(' | ');
    if (schema.const !== undefined) return JSON.stringify(schema.const);
    const type = str(schema.type) ?? list(schema.type).map(String).join(' | ');
    if (type === 'array') return `array of ${typeOf(resolve(schema.items) ?? obj(schema.items))}`;
    const format = str(schema.format);
    return format ? `${type} (${format})` : type || 'any';
  }

  function rulesOf(schema: Json | undefined): string {
    if (schema === undefined) return '';
    const rules: string[] = [];
    const range = (low: unknown, high: unknown, unit: string) => {
      const lo = typeof low === 'number' ? low : undefined;
      const hi = typeof high === 'number' ? high : undefined;
      if (lo !== undefined && hi !== undefined) rules.push(`${lo}–${hi}${unit}`);
      else if (lo !== undefined) rules.push(`at least ${lo}${unit}`);
      else if (hi !== undefined) rules.push(`at most ${hi}${unit}`);
    };
    range(schema.minLength, schema.maxLength, ' characters');
    range(schema.minimum, schema.maximum, '');
    const pattern = str(schema.pattern);
    if (pattern !== undefined) rules.push(`matches ${pattern}`);
    for (const alt of list(schema.anyOf)) {
      const format = str(obj(alt)?.format);
      if (format) rules.push(format);
    }
    return [...new Set(rules)].join(', ');
  }

  function rows(schema: unknown, prefix: string, depth: number): FieldRow[] {
    const resolved = resolve(schema);
    const properties = obj(resolved?.properties);
    if (resolved === undefined || properties === undefined) return [];
    const required = new Set(list(resolved.required).map(String));
    const out: FieldRow[] = [];
    for (const [name, raw] of Object.entries(properties)) {
      const field = obj(raw);
      const target = resolve(field);
      out.push({
        name: `${prefix}${name}`,
        type: typeOf(field),
        required: required.has(name),
        rules: rulesOf(target),
        description: str(field?.description) ?? str(target?.description) ?? '',
      });
      if (depth < 2 && obj(target?.properties) !== undefined)
        out.push(...rows(target, `${prefix}${name}.`, depth + 1));
    }
    if (resolved.additionalProperties !== undefined && resolved.additionalProperties !== false)
      out.push({
        name: `${prefix}…`,
        type: 'any',
        required: false,
        rules: '',
        description: 'further fields are kept as sent',
      });
    return out;
  }

  const table = (fields: FieldRow[]) =>
    fields.length === 0
      ? html`<p class="empty">No fields.</p>`
      : html`<table class="fields"><thead><tr><th>field</th><th>type</th><th>required</th><th>rules</th><th>meaning</th></tr></thead><tbody>
${fields.map(
  (f) =>
    html`<tr><td class="mono">${f.name}</td><td class="mono">${f.type}</td><td>${f.required ? 'yes' : ''}</td><td>${f.rules}</td><td>${f.description}</td></tr>`,
)}</tbody></table>`;

  const operations: ReturnType<typeof html>[] = [];
  const index: { id: string; label: string }[] = [];
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = obj(rawItem) ?? {};
    for (const method of METHODS) {
      const op = obj(item[method]);
      if (op === undefined) continue;
      const id = str(op.operationId) ?? `${method}-${path}`;
      const label = `${method.toUpperCase()} ${path}`;
      index.push({ id, label });
      const params = list(op.parameters).map((p) => {
        const param = obj(p) ?? {};
        const schema = obj(param.schema);
        return {
          name: `${str(param.name) ?? '?'} (in ${str(param.in) ?? 'path'})`,
          type: typeOf(schema),
          required: param.required === true,
          rules: rulesOf(schema),
          description: str(param.description) ?? str(schema?.description) ?? '',
        };
      });
      const body = obj(obj(obj(op.requestBody)?.content)?.['application/json'])?.schema;
      const answers = Object.entries(obj(op.responses) ?? {}).map(([status, raw]) => {
        const r = obj(raw);
        const ref = str(r?.$ref);
        const answer = ref === undefined ? r : obj(responses[ref.split('/').pop() ?? '']);
        const schema = obj(obj(obj(answer?.content)?.['application/json'])?.schema);
        return {
          status,
          description: str(answer?.description) ?? '',
          body: refName(schema) ?? typeOf(schema),
        };
      });
      operations.push(html`<section class="card wide op" id="${id}">
<h2><span class="method ${method}">${method.toUpperCase()}</span> <span class="mono">${path}</span></h2>
<p>${str(op.summary) ?? ''}</p>
${params.length > 0 ? html`<h3>Path parameters</h3>${table(params)}` : ''}
${body !== undefined ? html`<h3>Request body (JSON)${refName(body) ? html` <small class="mono">${refName(body)}</small>` : ''}</h3>${table(rows(body, '', 0))}` : ''}
<h3>Answers</h3>
<table class="answers"><thead><tr><th>status</th><th>body</th><th>when</th></tr></thead><tbody>
${answers.map((a) => html`<tr><td class="mono">${a.status}</td><td class="mono">${a.body}</td><td>${a.description}</td></tr>`)}
</tbody></table>
</section>`);
    }
  }
  const shapes = Object.keys(components).filter((name) => name !== 'Error');
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mock API fields · SOAR lab console</title>
<link rel="stylesheet" href="/console.css">
</head>
<body>
<header class="top">
  <h1>Mock API fields</h1>
  <nav class="pills"><a class="pill link" href="/">← console</a><a class="pill link" href="/openapi.json">OpenAPI document (JSON)</a></nav>
</header>
<main class="grid fields-page">
<section class="card wide">
<p>What your workflow's HTTP Request nodes send to the mock API and what it answers. Every POST takes
<span class="mono">Content-Type: application/json</span>; a refused request answers
<span class="mono">{"error": {"code", "message", "details"?}}</span>. In the lab your workflow reaches the
mock API at ${list(document.servers).map((s) => html`<span class="mono">${str(obj(s)?.url) ?? ''}</span>`)}; your browser cannot.</p>
<ul class="index">${index.map((i) => html`<li><a href="#${i.id}" class="mono">${i.label}</a></li>`)}</ul>
</section>
${operations}
<section class="card wide" id="shapes">
<h2>Shapes</h2>
${shapes.map((name) => html`<h3 class="mono" id="shape-${name}">${name}</h3>${table(rows({ $ref: `#/components/schemas/${name}` }, '', 0))}`)}
</section>
</main>
</body>
</html>`;
}
