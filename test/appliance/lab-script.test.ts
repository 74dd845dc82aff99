/**
 * docker/lab.sh without an engine: every Make target that needs Docker fails with one clear line when
 * Docker is missing or its engine does not answer, before touching anything.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from './compose-policy.js';

const run = promisify(execFile);
const script = new URL('docker/lab.sh', repoRoot).pathname;
const bash = ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'].find((p) => existsSync(p)) ?? 'bash';
const Failure = z.object({ code: z.number(), stdout: z.string(), stderr: z.string() });

let bin: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'lab-sh-test-'));
  // Only what lab.sh needs before it looks for Docker: no docker on this PATH.
  for (const tool of ['dirname', 'sed', 'od', 'tr', 'rm']) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (found) symlinkSync(found, join(bin, tool));
  }
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

async function lab(args: string[], path: string) {
  try {
    const r = await run(bash, [script, ...args], {
      env: { PATH: path, HOME: bin, LAB_ENV_FILE: join(bin, 'never.env') },
      timeout: 10_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    return Failure.parse(err);
  }
}

describe('docker/lab.sh', () => {
  it.each(['up', 'down', 'reset', 'health', 'state', 'logs'])(
    '%s fails with one clear line when Docker is missing',
    async (command) => {
      const r = await lab([command], bin);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toMatch(/^lab: Docker is needed: 'docker' was not found/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(join(bin, 'never.env'))).toBe(false);
    },
  );

  it('says so when the docker client is there but its engine does not answer', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'lab-sh-docker-'));
    writeFileSync(join(fake, 'docker'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(fake, 'docker'), 0o755);
    try {
      const r = await lab(['health'], `${fake}:${bin}`);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^lab: the Docker engine does not answer/);
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  it('prints its usage for an unknown command', async () => {
    const r = await lab(['frobnicate'], bin);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/usage: docker\/lab\.sh up\|down\|reset\|health\|state\|logs/);
  });
});
