/**
 * docker/n8n-init/import-and-publish.sh, the one-shot that makes the lab come up ready, run against a
 * fake `n8n` CLI that records its calls (the real one is in the n8n image; the script was also run
 * once against the real n8n 2.41.1 CLI, see docs/appliance.md).
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readRepoFile, repoRoot } from './compose-policy.js';

const run = promisify(execFile);
const script = new URL('docker/n8n-init/import-and-publish.sh', repoRoot).pathname;
const workflowsDir = new URL('docker/n8n/workflows/', repoRoot).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'n8n-import-test-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'workflows'));
  const fake = join(dir, 'bin', 'n8n');
  writeFileSync(fake, `#!/bin/sh\necho "$*" >> "${join(dir, 'calls.log')}"\n`);
  chmodSync(fake, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function importFrom(workflows: string): Promise<{ code: number; output: string; calls: string[] }> {
  const env = {
    ...process.env,
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    LAB_WORKFLOWS_DIR: workflows,
    LAB_IMPORT_MARKER: join(dir, 'imported.sha256'),
  };
  let code = 0;
  let output = '';
  try {
    const r = await run('sh', [script], { env, timeout: 15_000 });
    output = r.stdout + r.stderr;
  } catch (err) {
    const failed = z.object({ code: z.number(), stdout: z.string(), stderr: z.string() }).parse(err);
    ({ code } = failed);
    output = failed.stdout + failed.stderr;
  }
  let calls: string[] = [];
  try {
    calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n');
  } catch {
    // no call made
  }
  return { code, output, calls };
}

describe('docker/n8n-init/import-and-publish.sh', () => {
  it("imports every workflow of docker/n8n/workflows, then publishes it by the JSON's id", async () => {
    const files = readdirSync(workflowsDir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    const expected = files.sort().flatMap((file) => {
      const { id } = z
        .object({ id: z.string() })
        .parse(JSON.parse(readRepoFile(`docker/n8n/workflows/${file}`)));
      return [
        `import:workflow --input=${workflowsDir.replace(/\/$/, '')}/${file}`,
        `publish:workflow --id=${id}`,
      ];
    });
    const result = await importFrom(workflowsDir.replace(/\/$/, ''));
    expect(result.code).toBe(0);
    expect(result.calls).toEqual(expected);
  });

  it('imports nothing the second time on the same files, and again once a file changed', async () => {
    writeFileSync(join(dir, 'workflows', 'one.json'), JSON.stringify({ id: 'wfA' }));
    const first = await importFrom(join(dir, 'workflows'));
    expect(first.calls).toEqual([
      `import:workflow --input=${join(dir, 'workflows', 'one.json')}`,
      'publish:workflow --id=wfA',
    ]);
    rmSync(join(dir, 'calls.log'));
    const second = await importFrom(join(dir, 'workflows'));
    expect(second.code).toBe(0);
    expect(second.output).toMatch(/imported and published already/);
    expect(second.calls).toEqual([]);
    writeFileSync(join(dir, 'workflows', 'one.json'), JSON.stringify({ id: 'wfA', name: 'changed' }));
    const third = await importFrom(join(dir, 'workflows'));
    expect(third.calls).toEqual(first.calls);
  });

  it('publishes each workflow of a file that holds an array', async () => {
    writeFileSync(join(dir, 'workflows', 'two.json'), JSON.stringify([{ id: 'wfA' }, { id: 'wfB' }]));
    const result = await importFrom(join(dir, 'workflows'));
    expect(result.code).toBe(0);
    expect(result.calls.filter((c) => c.startsWith('publish'))).toEqual([
      'publish:workflow --id=wfA',
      'publish:workflow --id=wfB',
    ]);
  });

  it('fails, importing nothing, on a workflow without an id', async () => {
    writeFileSync(join(dir, 'workflows', 'no-id.json'), JSON.stringify({ name: 'x' }));
    const result = await importFrom(join(dir, 'workflows'));
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/every workflow needs a string id/);
    expect(result.calls).toEqual([]);
  });

  it('fails when there is no workflow at all (the lab would not come up ready)', async () => {
    const result = await importFrom(join(dir, 'workflows'));
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/no workflow found/);
  });
});
