import { describe, expect, it } from 'vitest';
import { makeTestApp } from '../helpers/test-app.js';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
}

describe('GET /openapi.json', () => {
  it('documents every route the app serves, and nothing else', async () => {
    const t = makeTestApp();
    const doc = (await t.get('/openapi.json')).body as OpenApiDoc;
    expect(doc.openapi).toBe('3.1.0');
    const served = new Set(
      t.app.routes
        .filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, '{$1}')}`),
    );
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    expect(served.size).toBeGreaterThanOrEqual(13);
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it('describes bodies and responses with the route schemas, and every $ref resolves', async () => {
    const doc = (await makeTestApp().get('/openapi.json')).body as OpenApiDoc;
    expect(doc.paths['/cases']?.post?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/CaseWrite' } } },
    });
    const block = doc.components.schemas.BlockRequest as { properties: Record<string, object> };
    expect(block.properties.expires_minutes).toMatchObject({ type: 'integer', minimum: 1, maximum: 60 });
    const text = JSON.stringify(doc);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(doc.components.schemas, `missing component ${name}`).toHaveProperty(String(name));
    }
    expect(doc.paths['/blocklist']?.post?.responses).toHaveProperty('409');
    expect(doc.paths['/blocklist']?.post?.responses).toHaveProperty('413');
  });
});
