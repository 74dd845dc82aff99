/**
 * The service as it ships: dist/app/api/main.js is app/api/main.ts bundled by esbuild (esbuild.config.mjs). This
 * builds the bundle with those very options and runs it as a process: it must need nothing but Node's
 * own modules, and serve, validate, document, stream /state and stop on SIGTERM as the source does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript without declarations (it runs before anything is compiled)
import { serviceBundle } from '../../esbuild.config.mjs';
import { type ServiceProcess, spawnNode, startService } from '../helpers/service-process.js';

const options: BuildOptions = serviceBundle;
const dir = mkdtempSync(join(tmpdir(), 'soar-bundle-'));
const outfile = join(dir, 'main.js');
let imports: string[] = [];

beforeAll(async () => {
  const { metafile } = await build({ ...options, outfile, metafile: true });
  imports = Object.values(metafile?.outputs ?? {}).flatMap((o) => o.imports.map((i) => i.path));
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the bundle imports nothing but Node’s own modules', () => {
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((path) => !path.startsWith('node:'))).toEqual([]);
});

const call = (service: ServiceProcess, method: string, path: string, body?: unknown) =>
  fetch(`${service.url}${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });

describe('the bundled service (dist/app/api/main.js) as a process', () => {
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await startService(['--host', '127.0.0.1', '--port', '0'], {}, (args, env) =>
      spawnNode(outfile, args, env, []),
    );
  }, 30_000);
  afterAll(() => service?.child.kill('SIGKILL'));

  it('serves, validates, documents and streams the state like the source', async () => {
    expect((await call(service, 'GET', '/health')).status).toBe(200);
    const created = await call(service, 'POST', '/cases', { event_id: 'evt-b', result: 'blocked' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/cases/evt-b');
    const invalid = await call(service, 'POST', '/cases', { result: 'blocked' });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    const doc = (await (await call(service, 'GET', '/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toContain('/cases');
    const state = await call(service, 'GET', '/state');
    expect(state.status).toBe(200);
    expect(((await state.json()) as { cases: unknown[] }).cases).toHaveLength(1);
    const head = await call(service, 'HEAD', '/state');
    expect(head.status).toBe(200);
    expect(service.stderr()).toBe('');
  });

  it('stops on SIGTERM with exit code 0', async () => {
    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);
    expect(service.stdout()).toContain('stopped (SIGTERM)');
  });
});
