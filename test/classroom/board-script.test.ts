/**
 * docker/lab/board.sh against a fake `docker` that answers from files and records every call: each lab's
 * state from `docker ps -a` (running, stopped, broken and why, absent; the one-shot tools container and
 * other projects ignored), the states file the board reads (valid, whole, readable by the board's uid), a
 * second `make class-board` saying where the first is, the refusals, `make down`'s release, and the class
 * report from the same inputs in containers with no network.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatesFileSchema } from '../../app/classroom/class-input.js';

const run = promisify(execFile);
const harness = new URL('board-sh.sh', import.meta.url).pathname;

const FAKE_DOCKER = `#!/usr/bin/env bash
echo "docker $*" >>"$FAKE/log"
case "$1 $2" in
  "info -f") case "$3" in *ServerVersion*) echo 26.1.5 ;; esac ;;
  "info "*) exit 0 ;;
  "compose version") echo 2.26.1 ;;
  "ps -a") cat "$FAKE/ps" ;;
  "volume ls") cat "$FAKE/volumes" ;;
  "volume inspect") grep -qx "$3" "$FAKE/volumes" ;;
  "image inspect") exit 0 ;;
  "container inspect")
    [ -f "$FAKE/running" ] || exit 1
    case "$4" in *Mounts*) cat "$FAKE/mounts" ;; *) echo true ;; esac ;;
  "port "*) echo "$(cat "$FAKE/address")" ;;
  "run --rm") echo "rendered" ;;
  *) exit 0 ;;
esac
`;

const FOUR = ['mock-api', 'console', 'postgres', 'n8n'];
const up = (lab: string, service: string) => `soar-lab-${lab} ${service} running Up 5 minutes (healthy)`;

let fake: string;
let labDir: string;

beforeEach(() => {
  fake = mkdtempSync(join(tmpdir(), 'board-sh-'));
  labDir = join(fake, 'checkout');
  mkdirSync(join(labDir, 'labs'), { recursive: true });
  mkdirSync(join(fake, 'bin'));
  writeFileSync(join(fake, 'bin', 'docker'), FAKE_DOCKER);
  chmodSync(join(fake, 'bin', 'docker'), 0o755);
  for (const f of ['ps', 'volumes', 'mounts', 'log']) writeFileSync(join(fake, f), '');
  writeFileSync(join(fake, 'address'), '127.0.0.1:8080\n');
  writeFileSync(join(fake, 'class.txt'), 'alice\nbob\ncarol\ndave\nerin\nfrank\n');
});
afterEach(() => rmSync(fake, { recursive: true, force: true }));

async function board(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run('bash', [harness, ...args], {
      env: {
        PATH: `${join(fake, 'bin')}:${process.env.PATH}`,
        FAKE: fake,
        LAB_DIR: labDir,
        BOARD_SH_ROOT: labDir,
        ROSTER: join(fake, 'class.txt'),
        ...env,
      },
      timeout: 15_000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const calls = () => readFileSync(join(fake, 'log'), 'utf8');

describe('board.sh: each lab’s state', () => {
  it('running, stopped, broken with why, absent; tools and other projects are not counted', async () => {
    writeFileSync(
      join(fake, 'ps'),
      [
        ...FOUR.map((s) => up('alice', s)),
        'soar-lab-alice tools running Up 3 seconds',
        ...FOUR.map((s) => `soar-lab-bob ${s} exited Exited (0) 2 hours ago`),
        ...FOUR.filter((s) => s !== 'n8n').map((s) => up('carol', s)),
        ...FOUR.map((s) =>
          s === 'n8n' ? 'soar-lab-dave n8n running Up 1 minute (unhealthy)' : up('dave', s),
        ),
        ...FOUR.map((s) =>
          s === 'console' ? 'soar-lab-erin console exited Exited (1) 1 minute ago' : up('erin', s),
        ),
        ...FOUR.map((s) => up('frankie', s)),
        ...FOUR.map((s) => `soar-lab ${s} running Up 1 hour (healthy)`),
      ].join('\n'),
    );
    const r = await board(['board_states']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([
      'alice running',
      'bob stopped',
      'carol broken n8n missing',
      'dave broken n8n unhealthy',
      'erin broken console exited',
      'frank absent',
    ]);
  });

  it('the states file: valid, whole, readable by the board’s uid, with each lab’s URLs and no secret', async () => {
    writeFileSync(
      join(labDir, 'labs', 'alice.env'),
      'LAB_BIND=127.0.0.1\nLAB_EDITOR_PORT=5679\nLAB_CONSOLE_PORT=8089\nCONSOLE_SECRET=abcdef0123456789\n',
    );
    const dir = join(fake, 'state');
    mkdirSync(dir);
    const r = await board([
      'board_write_states',
      dir,
      'alice running\nbob broken n8n unhealthy, console missing\n',
    ]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['states.json']);
    expect(statSync(join(dir, 'states.json')).mode & 0o777).toBe(0o644);
    const text = readFileSync(join(dir, 'states.json'), 'utf8');
    expect(text).not.toContain('abcdef0123456789');
    const states = StatesFileSchema.parse(JSON.parse(text));
    expect(Date.now() - Date.parse(states.at)).toBeLessThan(5_000);
    expect(states.labs).toEqual([
      {
        name: 'alice',
        state: 'running',
        detail: '',
        editor_url: 'http://127.0.0.1:5679',
        console_url: 'http://127.0.0.1:8089',
      },
      {
        name: 'bob',
        state: 'broken',
        detail: 'n8n unhealthy, console missing',
        editor_url: null,
        console_url: null,
      },
    ]);
  });
});

describe('the board’s links to a lab on a classroom address', () => {
  it('are https, as the lab serves them (loopback stays http)', async () => {
    writeFileSync(
      join(labDir, 'labs', 'dana.env'),
      'LAB_BIND=10.0.0.5\nLAB_EDITOR_PORT=5680\nLAB_CONSOLE_PORT=8090\n',
    );
    const dir = join(fake, 'state-tls');
    mkdirSync(dir);
    const r = await board(['board_write_states', dir, 'dana running\n']);
    expect(r.code).toBe(0);
    const states = StatesFileSchema.parse(JSON.parse(readFileSync(join(dir, 'states.json'), 'utf8')));
    expect(states.labs.map((lab) => [lab.editor_url, lab.console_url])).toEqual([
      ['https://10.0.0.5:5680', 'https://10.0.0.5:8090'],
    ]);
  });
});

describe('make class-board', () => {
  const fresh = () => {
    mkdirSync(join(labDir, 'labs', 'class-board'), { recursive: true });
    writeFileSync(join(labDir, 'labs', 'class-board', 'states.json'), '{}');
  };

  it('run again while one runs: says where it is, starts nothing', async () => {
    writeFileSync(join(fake, 'running'), '');
    fresh();
    const r = await board(['cmd_class_board']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'lab: the class board runs already: http://127.0.0.1:8080/ (Ctrl-C where it runs stops it)\n',
    );
    expect(calls()).not.toMatch(/docker (run|rm|network)/);
  });

  it('published beyond loopback, it says its sign-in link (the secret after #)', async () => {
    writeFileSync(join(fake, 'running'), '');
    writeFileSync(join(fake, 'address'), '10.0.0.5:8080\n');
    writeFileSync(join(labDir, 'labs', 'class-board.env'), 'CLASS_BOARD_SECRET=0123456789abcdef\n');
    fresh();
    const r = await board(['cmd_class_board']);
    expect(r.stdout).toContain('https://10.0.0.5:8080/login#secret=0123456789abcdef');
  });

  it.each([
    [{ CLASS_BOARD_PORT: '99999' }, 'lab: CLASS_BOARD_PORT=99999 is not a port number (1-65535)'],
    [{ LAB_BIND: '0.0.0.0' }, 'lab: LAB_BIND=0.0.0.0 would publish the board on every address'],
    [{ LAB_BIND: 'classroom' }, 'lab: LAB_BIND=classroom is not an IPv4 address of this machine'],
  ])('refuses %j in one line, having started nothing', async (env, line) => {
    const r = await board(['cmd_class_board'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^${line.replace(/[.()]/g, '\\$&')}`));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(calls()).not.toMatch(/docker (run|network)/);
  });

  it('refuses a roster naming a lab class-board (the board’s own name)', async () => {
    writeFileSync(join(fake, 'class.txt'), 'alice\nclass-board\n');
    const r = await board(['cmd_class_board']);
    expect(r.stderr).toMatch(/names a lab class-board, the board's own name/);
  });
});

describe('make down while the board runs', () => {
  it('a board without its loop that holds the lab’s volume is removed; one that does not is left alone', async () => {
    writeFileSync(join(fake, 'running'), '');
    writeFileSync(join(fake, 'mounts'), 'soar-lab-alice_lab-reports soar-lab-bob_lab-reports \n');
    expect((await board(['board_release', 'carol'])).code).toBe(0);
    expect(calls()).not.toMatch(/docker rm/);
    expect((await board(['board_release', 'bob'])).code).toBe(0);
    expect(calls()).toMatch(/docker rm -f soar-lab-class-board/);
  });
});

describe('the class report from the board’s inputs', () => {
  it('mounts each existing reports volume read-only, in containers with no network, and writes four files', async () => {
    writeFileSync(join(fake, 'volumes'), 'soar-lab-alice_lab-reports\nsoar-lab-carol_lab-reports\n');
    const r = await board(['cmd_class_report_from_labs']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^lab: class report: reports\/class.html, class.json, class.csv, class-history.csv \(6 labs/,
    );
    const runs = calls()
      .split('\n')
      .filter((l) => l.startsWith('docker run'));
    expect(runs).toHaveLength(4);
    for (const line of runs) {
      expect(line).toContain(
        '--network none --read-only --cap-drop ALL --security-opt no-new-privileges --user 1000:1000',
      );
      expect(line).toContain(
        '--mount type=volume,source=soar-lab-alice_lab-reports,target=/labs/alice,readonly',
      );
      expect(line).toContain(
        '--mount type=volume,source=soar-lab-carol_lab-reports,target=/labs/carol,readonly',
      );
      expect(line).not.toContain('soar-lab-bob_lab-reports');
    }
  });
});
