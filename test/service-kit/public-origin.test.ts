/**
 * LAB_PUBLIC_ORIGIN, read twice: by the lab's scripts (docker/lab/values.sh's check_public_origin,
 * docker/lab/settings.sh's load_settings) and by the console (app/service-kit/public-origin.ts). Both
 * take and refuse the same values, a refusal is one line, and the settings keep a lab behind a proxy on
 * loopback, name the trainee's URLs for the proxy and tell the console its lab.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PublicOriginSchema, publicOriginAt } from '../../app/service-kit/public-origin.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const labDir = mkdtempSync(join(tmpdir(), 'public-origin-'));
afterAll(() => rmSync(labDir, { recursive: true, force: true }));

/** Runs a few lines of bash with the lab's settings functions sourced, in a folder of no lab. */
function labShell(lines: string, env: Record<string, string> = {}) {
  const script = [
    'set -euo pipefail',
    '. "$ROOT/docker/lab/common.sh"',
    '. "$ROOT/docker/lab/net.sh"',
    '. "$ROOT/docker/lab/settings.sh"',
    lines,
  ].join('\n');
  const r = spawnSync('bash', ['-c', script, 'test'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ROOT, LAB_DIR: labDir, ...env },
    encoding: 'utf8',
    // No stdin: on a socket (node's pipes are socket pairs) bash would read ~/.bashrc as for a remote shell.
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const GOOD = [
  'https://lab.example.org',
  'https://lab.example.org/',
  'https://LAB.example.org',
  'https://[fd00::5]',
];
const BAD = [
  'http://lab.example.org',
  'https://lab.example.org:8443',
  'https://lab.example.org/console',
  'https://lab.example.org?x=1',
  'https://user@lab.example.org',
  'https://',
  'lab.example.org',
  'https://lab example.org',
  'https://-lab.example.org',
];

describe('LAB_PUBLIC_ORIGIN', () => {
  it.each(GOOD)('takes %s, in the scripts and in the console alike', (origin) => {
    expect(PublicOriginSchema.safeParse(origin).success).toBe(true);
    expect(labShell(`check_public_origin '${origin}'`).code).toBe(0);
  });

  it.each(BAD)('refuses %s in one line, in the scripts and in the console alike', (origin) => {
    expect(PublicOriginSchema.safeParse(origin).success).toBe(false);
    const r = labShell(`check_public_origin '${origin}'`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `lab: LAB_PUBLIC_ORIGIN=${origin} is not an https:// origin without a port or a path (e.g. https://lab.example.org): the TLS proxy serves each lab on the lab's own ports\n`,
    );
  });

  it("gives each app the proxy's name with the app's own port (443 left out, as a browser sends it)", () => {
    expect(publicOriginAt('https://lab.example.org', 8089)).toBe('https://lab.example.org:8089');
    expect(publicOriginAt('https://lab.example.org', 443)).toBe('https://lab.example.org');
  });

  it("load_settings: the trainee's URLs on the proxy's name, the console told its lab, the setting kept", () => {
    const r = labShell(
      'lab_identity; load_settings 1; echo "$EDITOR_URL $CONSOLE_URL $CONSOLE_LAB $LAB_PUBLIC_ORIGIN"; echo "$LAB_SETTINGS"',
      { LAB: 'alice', LAB_PUBLIC_ORIGIN: 'https://lab.example.org/' },
    );
    expect(r.stderr).toBe('');
    const [urls, settings] = r.stdout.trim().split('\n');
    expect(urls).toBe(
      'https://lab.example.org:5679 https://lab.example.org:8089 alice https://lab.example.org',
    );
    expect(settings?.split(' ')).toContain('LAB_PUBLIC_ORIGIN');
    // The control: without it, the lab's own address over HTTP, and the single lab is `default`.
    const plain = labShell('lab_identity; load_settings; echo "$CONSOLE_URL $CONSOLE_LAB"');
    expect(plain.stdout.trim()).toBe('http://127.0.0.1:8088 default');
  });

  it('load_settings refuses a proxied lab that is also published on the network, in one line', () => {
    const r = labShell('lab_identity; load_settings', {
      LAB_PUBLIC_ORIGIN: 'https://lab.example.org',
      LAB_BIND: '192.0.2.5',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'lab: LAB_PUBLIC_ORIGIN=https://lab.example.org with LAB_BIND=192.0.2.5: behind a TLS proxy the lab stays on loopback (LAB_BIND=127.0.0.1); the proxy listens on the classroom network\n',
    );
    const bad = labShell('lab_identity; load_settings', { LAB_PUBLIC_ORIGIN: 'http://lab.example.org' });
    expect([bad.code, bad.stderr.trim().split('\n').length]).toEqual([1, 1]);
  });
});
