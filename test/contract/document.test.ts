/**
 * The served document, as the tools lab builders reach for read it: Spectral's OpenAPI rules, the JSON
 * Schema 2020-12 meta-schema, and checks that the document and the service agree on a table of inputs.
 */
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../app/api/server.js';
import { makeTestApp } from '../helpers/test-app.js';
import {
  bin,
  clone,
  fetchDocument,
  type OpenApiDocument,
  ROOT,
  run,
  startService,
  tempDir,
} from './tools.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const newAjv = () => addFormats(new Ajv2020({ strict: false, allErrors: true }));

let service: RunningServer;
let doc: OpenApiDocument;
beforeAll(async () => {
  service = await startService();
  doc = await fetchDocument(service.url);
});
afterAll(() => service.close(200));

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
const componentOf = (ref: string) => doc.components.schemas[ref.split('/').pop() ?? ''];

interface SpectralResult {
  code: string;
  message: string;
  severity: number;
  source: string;
}

describe('Spectral (spectral:oas)', () => {
  it('reports no error on the served document, and does on a copy with a $id fragment', async () => {
    const tmp = await tempDir();
    try {
      const good = await tmp.write('served.json', doc);
      const brokenDoc = clone(doc);
      brokenDoc.components.schemas.Health = {
        $id: '#/components/schemas/Health',
        ...brokenDoc.components.schemas.Health,
      };
      const broken = await tmp.write('broken.json', brokenDoc);
      const output = join(tmp.dir, 'results.json');
      const ruleset = join(ROOT, 'test/contract/spectral-ruleset.yaml');
      const { stderr } = await run(bin('spectral'), [
        'lint',
        good,
        broken,
        '--ruleset',
        ruleset,
        '-f',
        'json',
        '-o',
        output,
        '-q',
      ]);
      const { readFile } = await import('node:fs/promises');
      const results = JSON.parse(await readFile(output, 'utf8')) as SpectralResult[];
      const errors = (source: string) => results.filter((r) => r.severity === 0 && r.source === source);
      expect(errors(good), stderr).toEqual([]);
      expect(errors(broken).length, stderr).toBeGreaterThan(0);
      // Warnings are style advice (operation descriptions, a contact); they are listed, not hidden.
      const warnings = results.filter((r) => r.source === good).map((r) => r.code);
      expect(new Set(warnings)).toEqual(new Set(['info-contact', 'operation-description']));
    } finally {
      await tmp.remove();
    }
  }, 60_000);
});

describe('JSON Schema 2020-12', () => {
  it('every component and parameter schema validates against the meta-schema', () => {
    const ajv = newAjv();
    const schemas = [
      ...Object.entries(doc.components.schemas),
      ...operations().flatMap(({ path, op }) =>
        (op.parameters ?? []).map((p) => [`${path} ${p.name}`, p.schema] as const),
      ),
    ];
    expect(schemas.length).toBeGreaterThan(20);
    for (const [name, schema] of schemas) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText()}`).toBe(true);
    }
  });

  it.each([
    ['a fragment in $id', { $id: '#/components/schemas/Health', type: 'object' }],
    ['an unknown type', { type: 'strin' }],
    ['a negative minLength', { type: 'string', minLength: -1 }],
  ])('the meta-schema check refuses %s', (_name, schema) => {
    expect(newAjv().validateSchema(schema)).toBe(false);
  });
});

describe('the document and the service agree', () => {
  /** A valid body per POST route: the table must cover every POST the document has. */
  const VALID_BODIES: Record<string, unknown> = {
    '/cases': { event_id: 'evt-1', result: 'pending' },
    '/notify': { message: 'hello' },
    '/blocklist': { ip: '203.0.113.66', event_id: 'evt-1', expires_minutes: 10 },
    '/control/case-mode': { mode: 'healthy' },
    '/control/clock': { advance_minutes: 1 },
    '/reset': {},
  };

  it('on unknown body fields: refused (422) exactly where the schema is closed, kept where it is open', async () => {
    const posts = operations().filter(({ method }) => method === 'POST');
    expect(posts.map(({ path }) => path).sort()).toEqual(Object.keys(VALID_BODIES).sort());
    for (const { path, op } of posts) {
      const schema = componentOf(op.requestBody?.content['application/json'].schema.$ref ?? '');
      const closed = schema?.additionalProperties === false;
      expect(
        closed || JSON.stringify(schema?.additionalProperties) === '{}',
        `${path} states its decision`,
      ).toBe(true);
      const t = makeTestApp();
      const res = await t.post(path, { ...(VALID_BODIES[path] as object), lab_note: 'unexpected' });
      expect(res.status === 422, `${path} answered ${res.status}`).toBe(closed);
      if (!closed) expect(JSON.stringify(res.body)).toContain('"lab_note":"unexpected"');
    }
  });

  const PARAM_VALUES: Record<string, string[]> = {
    ip: [
      '203.0.113.66',
      '198.51.100.7',
      '::1',
      '::',
      '2001:db8::1',
      'FE80::1',
      '::ffff:192.0.2.1',
      '1.2.3.256',
      '01.2.3.4',
      '1.2.3',
      'fe80::1%eth0',
      '1:2:3:4:5:6:7:8:9',
      'localhost',
      ' 203.0.113.66',
    ],
    event_id: ['evt-1', 'évt ü/?', 'x'.repeat(128), 'x'.repeat(129)],
    user: ['lab-admin', 'nobody', 'x'.repeat(128), 'x'.repeat(129)],
  };

  it('on path parameters: the service refuses (400) exactly what the parameter schema refuses', async () => {
    const ajv = newAjv();
    const t = makeTestApp();
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const param of op.parameters ?? []) {
        const values = PARAM_VALUES[param.name];
        expect(values, `a table for ${param.name}`).toBeDefined();
        const valid = ajv.compile(param.schema);
        for (const value of values ?? []) {
          const url = path.replace(`{${param.name}}`, encodeURIComponent(value));
          const res = await t.send(method, url);
          const refused = res.status === 400;
          expect(refused, `${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`).toBe(!valid(value));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('names a clean operationId for every operation, the server it was fetched from, and required headers', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(doc.servers).toEqual([{ url: service.url }]);
    const created = doc.paths['/cases']?.post?.responses['201'];
    expect(created?.headers?.Location?.required).toBe(true);
    const ipParam = doc.paths['/blocklist/{ip}']?.get?.parameters?.[0]?.schema;
    expect(JSON.stringify(ipParam)).toContain('"format":"ipv4"');
    expect(JSON.stringify(ipParam)).toContain('"format":"ipv6"');
    const caseFields = Object.keys((componentOf('Case')?.properties as object | undefined) ?? {});
    for (const field of [
      'result',
      'final_action',
      'approver',
      'evidence',
      'verification',
      'expiry',
      'rollback',
    ]) {
      expect(caseFields).toContain(field);
    }
  });
});
