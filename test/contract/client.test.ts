/**
 * A client generated from the served document: openapi-typescript writes the types at test time,
 * `tsc --strict` compiles the README's lab exercise against them, and openapi-fetch runs it against the
 * real service. A document that stops naming a field the exercise reads must fail the compile.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../app/api/server.js';
import { clone, fetchDocument, type OpenApiDocument, ROOT, run, startService } from './tools.js';

const CLIENT = join(ROOT, 'test/contract/client');
const GENERATED = join(CLIENT, 'generated');

let service: RunningServer;
let doc: OpenApiDocument;
beforeAll(async () => {
  service = await startService();
  doc = await fetchDocument(service.url);
});
afterAll(async () => {
  await service.close(200);
  await rm(GENERATED, { recursive: true, force: true });
});

async function generate(document: OpenApiDocument): Promise<void> {
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]);
  await mkdir(GENERATED, { recursive: true });
  await writeFile(join(GENERATED, 'openapi.d.ts'), astToString(ast));
}

const compile = () =>
  run(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(CLIENT, 'tsconfig.json')],
    90_000,
  );

describe('a client generated with openapi-typescript + openapi-fetch', () => {
  it('does not compile when the document no longer names a case field the exercise reads', async () => {
    const broken = clone(doc);
    const caseSchema = broken.components.schemas.Case as { properties: Record<string, unknown> };
    delete caseSchema.properties.result;
    await generate(broken);
    const { code, stdout } = await compile();
    expect(code).not.toBe(0);
    expect(stdout).toContain('lab-exercise.ts');
  }, 90_000);

  it('compiles the lab exercise under strict TypeScript and runs it against the service', async () => {
    await generate(doc);
    const { code, stdout, stderr } = await compile();
    expect(`${stdout}${stderr}`).toBe('');
    expect(code).toBe(0);
    // Imported by path: the project's own type-check never sees the generated types, this test does.
    const exercise: { runLabExercise(baseUrl: string): Promise<string[]> } = await import(
      pathToFileURL(join(CLIENT, 'lab-exercise.ts')).href
    );
    const log = await exercise.runLabExercise(service.url);
    expect(log).toHaveLength(15);
    expect(log.at(-1)).toBe('POST /reset -> 200');
  }, 90_000);
});
