/**
 * docker/lab.sh without an engine: every Make target that needs Docker fails with one clear line when
 * Docker is missing or its engine does not answer, before touching anything.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from './compose-policy.js';
import { labCommands } from './lab-sh-text.js';

const run = promisify(execFile);
const script = new URL('docker/lab.sh', repoRoot).pathname;
/** Every command lab.sh's main dispatches, read from it: a command it gains is tested without an edit here. */
const dispatched = labCommands(readFileSync(script, 'utf8'));
const commands = dispatched.map((c) => c.command);
/** The class's commands that run each lab's own lab.sh, which says for itself that Docker is needed. */
const eachLab = dispatched.filter((c) => c.runs.startsWith('cmd_class_each ')).map((c) => c.command);
const bash = ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'].find((p) => existsSync(p)) ?? 'bash';
const Failure = z.object({ code: z.number(), stdout: z.string(), stderr: z.string() });

let bin: string;
let roster: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'lab-sh-test-'));
  // Only what lab.sh needs before it looks for Docker: no docker on this PATH.
  for (const tool of ['dirname', 'sed', 'od', 'tr', 'rm']) {
    const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
    if (found) symlinkSync(found, join(bin, tool));
  }
  roster = join(bin, 'roster.txt');
  writeFileSync(roster, 'alice\n');
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

async function lab(args: string[], path: string, env: Record<string, string> = {}) {
  try {
    const r = await run(bash, [script, ...args], {
      env: { PATH: path, HOME: bin, LAB_DIR: bin, ...env },
      timeout: 10_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    return Failure.parse(err);
  }
}

describe('docker/lab.sh', () => {
  it('reads its commands from lab.sh: a trainer’s, a class’s and the developers’', () => {
    expect(commands).toEqual(
      expect.arrayContaining([
        'up',
        'down',
        'reset',
        'health',
        'state',
        'logs',
        'save',
        'restore',
        'stop',
        'start',
      ]),
    );
    expect(commands).toEqual(
      expect.arrayContaining(['check', 'starter', 'class-up', 'class-board', 'bundle']),
    );
    expect(new Set(commands).size).toBe(commands.length);
    expect(eachLab).toEqual(expect.arrayContaining(['class-down', 'class-save']));
  });

  it.each(commands.filter((command) => !eachLab.includes(command)))(
    '%s fails with one clear line when Docker is missing',
    async (command) => {
      // What a command reads before it looks for Docker: a stage for check and starter, a roster for a class's.
      const args = command === 'check' ? ['all'] : command === 'starter' ? ['enrich'] : [];
      const env: Record<string, string> = command.startsWith('class-') ? { ROSTER: roster } : {};
      const r = await lab([command, ...args], bin, env);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toMatch(/^lab: Docker is needed: 'docker' was not found/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(join(bin, '.env'))).toBe(false);
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

  it('says what to do when the engine refuses the user (not in the docker group)', async () => {
    const fake = mkdtempSync(join(tmpdir(), 'lab-sh-docker-'));
    writeFileSync(
      join(fake, 'docker'),
      '#!/bin/sh\necho "permission denied while trying to connect to the Docker daemon socket" >&2\nexit 1\n',
    );
    chmodSync(join(fake, 'docker'), 0o755);
    try {
      const r = await lab(['up'], `${fake}:${bin}`);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^lab: no permission to use the Docker engine's socket: add your user to the 'docker' group/,
      );
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  it.each([
    [
      'only Compose v1 (docker-compose) is there',
      'exit 1',
      true,
      /^lab: Compose v2 is needed \('docker compose'\); only Compose v1/,
    ],
    [
      'no Compose at all',
      'exit 1',
      false,
      /^lab: Docker Compose v2 is needed: 'docker compose' was not found/,
    ],
    [
      'Compose 2.19',
      'echo 2.19.1',
      false,
      /^lab: Docker Compose 2\.19\.1 is too old: the lab needs 2\.20 or later/,
    ],
    [
      'Docker Engine 24',
      'echo 2.26.1',
      false,
      /^lab: Docker Engine 24\.0\.7 is too old: the lab needs 25\.0\.4 or later/,
      '24.0.7',
    ],
    [
      'Docker Engine 25.0.3 (its internal networks forward DNS queries to the host, CVE-2024-29018)',
      'echo 2.26.1',
      false,
      /^lab: Docker Engine 25\.0\.3 is too old: the lab needs 25\.0\.4 or later/,
      '25.0.3',
    ],
    [
      'an engine version it cannot read',
      'echo 2.26.1',
      false,
      /^lab: Docker Engine dev is too old: the lab needs 25\.0\.4 or later/,
      'dev',
    ],
  ])('refuses in one line when %s', async (_what, composeAnswer, v1, reason, engine = '26.1.5') => {
    const fake = mkdtempSync(join(tmpdir(), 'lab-sh-compose-'));
    writeFileSync(
      join(fake, 'docker'),
      `#!/bin/sh\ncase "$*" in "compose version --short") ${composeAnswer} ;; "info -f {{.ServerVersion}}") echo ${engine} ;; esac\nexit 0\n`,
    );
    if (v1) writeFileSync(join(fake, 'docker-compose'), '#!/bin/sh\necho "docker-compose version 1.29.2"\n');
    chmodSync(join(fake, 'docker'), 0o755);
    if (v1) chmodSync(join(fake, 'docker-compose'), 0o755);
    try {
      const r = await lab(['up'], `${fake}:${bin}`);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(reason);
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });

  it.each([
    ['25.0.4', true],
    ['25.0.10', true],
    ['25.1.0', true],
    ['26.1.5', true],
    ['27.3.1-ce', true],
    ['25.0.3', false],
    ['24.9.9', false],
    ['25', false],
    ['', false],
  ])('takes Docker Engine %s as at least 25.0.4: %s', async (version, accepted) => {
    const compose = new URL('docker/lab/compose.sh', repoRoot).pathname;
    const r = await run('bash', [
      '-c',
      `. "${compose}"; engine_at_least "$1" "$ENGINE_MIN" && echo yes || echo no`,
      '_',
      version,
    ]);
    expect(r.stdout.trim()).toBe(accepted ? 'yes' : 'no');
  });

  it('prints its usage for an unknown command', async () => {
    const r = await lab(['frobnicate'], bin);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /usage: docker\/lab\.sh up\|down\|reset\|solution\|save\|restore\|stop\|start\|status\|check STAGE/,
    );
  });

  it.each(['Alice', 'a_b', '-a', 'a-', 'x'.repeat(33)])('refuses LAB=%s, not a lab name', async (name) => {
    const r = await run(bash, [script, 'up'], {
      env: { PATH: bin, HOME: bin, LAB_DIR: bin, LAB: name },
    }).catch((err: unknown) => Failure.parse(err));
    expect(r.stderr.trim()).toMatch(/^lab: LAB=.* is not a lab name: lower-case letters, digits and '-'/);
  });
});

/**
 * `make up`'s refusals, against a fake `docker` that answers like an engine with one other network and
 * records every call: each refusal is one line, and nothing is built, created or written before it.
 */
describe('docker/lab.sh up refuses early, in one line', () => {
  let fake: string;
  let calls: string;
  beforeEach(() => {
    fake = mkdtempSync(join(tmpdir(), 'lab-sh-preflight-'));
    calls = join(fake, 'calls.log');
    writeFileSync(
      join(fake, 'docker'),
      `#!/bin/sh
echo "$*" >> "${calls}"
case "$*" in
  "compose version --short") echo 2.26.1 ;;
  "info -f {{.ServerVersion}}") echo 26.1.5 ;;
  "info -f {{.MemTotal}}") echo "\${FAKE_MEM_BYTES:-8589934592}" ;;
  "ps --format {{.Label \\"com.docker.compose.project\\"}}") printf '%s' "\${FAKE_RUNNING:-}" ;;
  "network ls -q") echo abc123 ;;
  "network inspect"*) echo "\${FAKE_NETWORK:-other_default 10.99.0.0/16}" ;;
esac
exit 0
`,
    );
    chmodSync(join(fake, 'docker'), 0o755);
  });
  afterEach(() => rmSync(fake, { recursive: true, force: true }));

  async function up(env: Record<string, string>) {
    try {
      const r = await run(bash, [script, 'up'], {
        env: {
          PATH: `${fake}:${process.env.PATH}`,
          HOME: fake,
          LAB_DIR: fake,
          LAB_CONSOLE_PORT: '2',
          ...env,
        },
        timeout: 15_000,
      });
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      return Failure.parse(err);
    }
  }

  function expectRefusedBeforeAnything(r: { code: number; stderr: string }, reason: RegExp) {
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(reason);
    expect(existsSync(join(fake, '.env'))).toBe(false);
    const made = readFileSync(calls, 'utf8')
      .split('\n')
      .filter((c) => / (up|build|create)\b/.test(c));
    expect(made).toEqual([]);
  }

  it('refuses a LAB_SUBNET that overlaps another Docker network', async () => {
    const r = await up({ FAKE_NETWORK: 'corp_vpn 172.30.0.0/16', LAB_EDITOR_PORT: '1' });
    expectRefusedBeforeAnything(
      r,
      /^lab: LAB_SUBNET=172\.30\.66\.0\/24 overlaps the Docker network 'corp_vpn' \(172\.30\.0\.0\/16\)/,
    );
  });

  it.each([
    ['LAB_EDITOR_PORT', 'the n8n editor'],
    ['LAB_CONSOLE_PORT', 'the lab console'],
  ])('refuses %s when something listens on it', async (setting, what) => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = z.object({ port: z.number() }).parse(server.address());
    try {
      const r = await up({ LAB_EDITOR_PORT: '1', [setting]: String(port) });
      expectRefusedBeforeAnything(
        r,
        new RegExp(`^lab: 127\\.0\\.0\\.1:${port} \\(${what}\\) is already in use`),
      );
    } finally {
      server.close();
    }
  });

  it('refuses an engine with too little memory', async () => {
    const r = await up({ FAKE_MEM_BYTES: String(1024 * 1048576), LAB_EDITOR_PORT: '1' });
    expectRefusedBeforeAnything(
      r,
      /^lab: the Docker engine has 1024 MiB of memory; 1 lab\(s\) need at least 3072 MiB/,
    );
  });

  it('counts the labs already running: a third lab needs 1024 MiB more than the second', async () => {
    const running = 'soar-lab\nsoar-lab-b\nsomething-else\n';
    const r = await up({
      FAKE_MEM_BYTES: String(4096 * 1048576),
      FAKE_RUNNING: running,
      LAB_EDITOR_PORT: '1',
    });
    expectRefusedBeforeAnything(
      r,
      /^lab: the Docker engine has 4096 MiB of memory; 3 lab\(s\) need at least 5120 MiB/,
    );
    const control = await up({
      FAKE_MEM_BYTES: String(5120 * 1048576),
      FAKE_RUNNING: running,
      LAB_EDITOR_PORT: '1',
    });
    expect(control.stderr).not.toMatch(/memory/);
  });

  it.each([
    ['LAB_SUBNET', '172.30.66.0', /^lab: LAB_SUBNET=172\.30\.66\.0 is not an IPv4 \/24 network/],
    ['LAB_SUBNET', '10.0.0.0/8', /^lab: LAB_SUBNET=10\.0\.0\.0\/8 is not an IPv4 \/24 network/],
    ['LAB_EDITOR_PORT', '70000', /^lab: LAB_EDITOR_PORT=70000 is not a port number/],
    ['LAB_MODE', 'solution', /^lab: LAB_MODE=solution is not a lab mode: exercise .* or demo/],
    ['LAB_BIND', '0.0.0.0', /^lab: LAB_BIND=0\.0\.0\.0 would publish the lab on every address/],
    ['APPROVAL_TIMEOUT_SECONDS', '0', /^lab: APPROVAL_TIMEOUT_SECONDS=0 is not a whole number of seconds/],
    ['LAB_CPUS', '1.5.0', /^lab: LAB_CPUS=1\.5\.0 is not a number of cores from 0 to 64 .*\(docker's --cpus/],
    ['LAB_CPUS', '65', /^lab: LAB_CPUS=65 is not a number of cores/],
  ])('refuses %s=%s', async (name, value, reason) => {
    expectRefusedBeforeAnything(await up({ [name]: value }), reason);
  });

  it('control: with a free port, room and no overlap it gets past the refusals and starts', async () => {
    const r = await up({ LAB_SUBNET: '172.31.250.0/24', LAB_EDITOR_PORT: '1', LAB_CPUS: '0.5' });
    const log = readFileSync(calls, 'utf8');
    expect(log).toMatch(/ build -q mock-api/);
    expect(log).toMatch(/ up -d --no-recreate/);
    const settings = readFileSync(join(fake, '.env'), 'utf8');
    expect(settings).toMatch(/^LAB_N8N_RANGE=172\.31\.250\.32\/27$/m);
    expect(settings).toMatch(/^LAB_FRONT_SUBNET=172\.31\.250\.192\/26$/m);
    expect(settings).toMatch(/^LAB_INTERNAL_GATEWAY=172\.31\.250\.1$/m);
    expect(settings).toMatch(/^LAB_MODE=exercise$/m);
    // compose.yaml's n8n takes `cpus: ${LAB_CPUS:-1}` from the settings file.
    expect(settings).toMatch(/^LAB_CPUS=0\.5$/m);
    expect(settings).toMatch(/^LAB_BACKEND_SUBNET=172\.31\.250\.64\/26$/m);
    expect(r.stderr).not.toMatch(/overlaps|in use|memory/);
  });
});

describe('docker/lab.sh class-up reads the roster first, one line per refusal', () => {
  it.each([
    [
      '# trainees\nalice\n\nbob  # a comment\nAlice\n',
      /^lab: .*roster\.txt line 5: 'Alice' is not a lab name/,
    ],
    ['alice\nbob\nalice\n', /^lab: .*roster\.txt line 3: 'alice' is named twice/],
    ['# nobody yet\n\n', /^lab: ROSTER=.* names nobody/],
  ])('refuses %j', async (roster, reason) => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-sh-roster-'));
    writeFileSync(join(dir, 'roster.txt'), roster);
    try {
      const r = await run(bash, [script, 'class-up'], {
        env: { PATH: bin, HOME: dir, LAB_DIR: dir, ROSTER: join(dir, 'roster.txt') },
      }).catch((err: unknown) => Failure.parse(err));
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(reason);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('control: a valid roster gets past the roster to the engine (none here: Docker is needed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-sh-roster-'));
    writeFileSync(join(dir, 'roster.txt'), '# trainees\nalice\nbob # second\n');
    try {
      const r = await run(bash, [script, 'class-up'], {
        env: { PATH: bin, HOME: dir, LAB_DIR: dir, ROSTER: join(dir, 'roster.txt') },
      }).catch((err: unknown) => Failure.parse(err));
      expect(r.stderr.trim()).toMatch(/^lab: Docker is needed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses make class-up without ROSTER', async () => {
    const r = await run(bash, [script, 'class-up'], { env: { PATH: bin, HOME: bin, LAB_DIR: bin } }).catch(
      (err: unknown) => Failure.parse(err),
    );
    expect(r.stderr.trim()).toMatch(/^lab: ROSTER is needed: make class-up ROSTER=class\.txt/);
  });
});
