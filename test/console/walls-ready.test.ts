/**
 * The console serves nothing until the lab's walls are in place (app/console/walls-ready.ts): its real
 * entry point, with the walls' ready file missing, listens on no port, and listens once the file is
 * written; it ends (exit 1, serving nothing) when the file does not come; a stale file is not ready.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { wallsReady } from '../../app/console/walls-ready.js';
import { spawnNode } from '../helpers/service-process.js';
import { waitForLine } from './harness.js';

const dirs: string[] = [];
const procs: ReturnType<typeof spawnNode>[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null) p.child.kill('SIGTERM');
    await p.exited;
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'walls-ready-'));
  dirs.push(d);
  return d;
};
const now = () => String(Math.floor(Date.now() / 1000));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function console_(dir: string, env: Record<string, string> = {}) {
  const proc = spawnNode('app/console/main.ts', [], {
    CONSOLE_PORT: '0',
    MOCK_API_SOCKET: join(dir, 'no-mock-api.sock'),
    CHECK_REPORT: join(dir, 'check-last.json'),
    CONSOLE_WALLS_READY: join(dir, 'ready'),
    ...env,
  });
  procs.push(proc);
  return proc;
}

describe('the walls ready file', () => {
  it('is ready when written within the last 75 s, not when missing or stale', async () => {
    const dir = scratch();
    const file = join(dir, 'ready');
    expect(await wallsReady(file, 75_000)).toBe(false);
    writeFileSync(file, `${now()}\n`);
    expect(await wallsReady(file, 75_000)).toBe(true);
    writeFileSync(file, `${Math.floor(Date.now() / 1000) - 120}\n`);
    expect(await wallsReady(file, 75_000)).toBe(false);
  });
});

describe('the console and the walls', () => {
  it('listens on no port until the ready file is there, then serves', async () => {
    const dir = scratch();
    const proc = console_(dir);
    await waitForLine(proc, /waiting for the lab's walls/);
    await sleep(1500);
    expect(proc.stdout()).not.toMatch(/listening/);
    expect(proc.child.exitCode).toBeNull();
    writeFileSync(join(dir, 'ready'), `${now()}\n`);
    const [, url = ''] = await waitForLine(proc, /console listening on (http:\/\/\S+)/, 5000);
    expect((await fetch(`${url}/api/session`)).status).toBe(200);
  });

  it('does not take a stale ready file (the walls stopped checking)', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'ready'), `${Math.floor(Date.now() / 1000) - 600}\n`);
    const proc = console_(dir, { CONSOLE_WALLS_WAIT_SECONDS: '1' });
    expect((await proc.exited).code).toBe(1);
    expect(proc.stdout()).not.toMatch(/listening/);
    expect(proc.stderr()).toMatch(/the lab's walls are not in place after 1 s .*: serving nothing/);
  });

  it('ends, serving nothing, when the walls do not come (its restart policy starts it again)', async () => {
    const dir = scratch();
    const proc = console_(dir, { CONSOLE_WALLS_WAIT_SECONDS: '1' });
    expect((await proc.exited).code).toBe(1);
    expect(proc.stdout()).not.toMatch(/listening/);
  });

  it('control: without a ready file to wait for, it listens at once', async () => {
    const dir = scratch();
    const proc = console_(dir, { CONSOLE_WALLS_READY: '' });
    await waitForLine(proc, /console listening on/, 10_000);
    expect(proc.stdout()).not.toMatch(/waiting for the lab's walls/);
  });
});
