/**
 * `make k8s-verify ROSTER=...` against the stand-in kubectl (test/k8s/bin/kubectl) and answers in the form
 * kubectl gives them (test/k8s/answers/): a ready class passes; a cluster whose network plugin does not
 * enforce NetworkPolicy, a pod that is not ready, a key not kept, a lab not applied, a stranger that never
 * finished or reached nothing at all, n8n's pod getting an answer from a DNS server, n8n's database role a
 * superuser: each fails, one line per failure. The stranger's own pod is valid and meets the restricted Pod
 * Security Standard; the lookups' probe is run here, against a resolver of the test's own.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { podViolations } from './hardening.js';
import { documents, ROOT, STAND_IN_BIN } from './render.js';
import { schemaError } from './schema.js';

const ANSWERS = join(ROOT, 'test/k8s/answers');
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8s-verify-'));
  made.push(dir);
  return dir;
};

/** The answers of `scenario`, changed by `change` (a copy). */
function answers(scenario: string, change: (dir: string) => void = () => {}): string {
  const dir = temp();
  cpSync(join(ANSWERS, scenario), dir, { recursive: true });
  change(dir);
  return dir;
}

function verify(answersDir: string, roster = 'alice\nbob\n') {
  const dir = temp();
  writeFileSync(join(dir, 'class.txt'), roster);
  const { MAKELEVEL: _level, MAKEFLAGS: _flags, MFLAGS: _mflags, ...outer } = process.env;
  const run = spawnSync('make', ['-s', 'k8s-verify', `ROSTER=${join(dir, 'class.txt')}`], {
    cwd: ROOT,
    env: {
      ...outer,
      PATH: `${STAND_IN_BIN}:${outer.PATH}`,
      K8S_ANSWERS: answersDir,
      K8S_CALLS: join(dir, 'calls'),
      K8S_APPLIED: join(dir, 'applied.yaml'),
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const read = (f: string) => {
    try {
      return readFileSync(join(dir, f), 'utf8');
    } catch {
      return '';
    }
  };
  return {
    code: run.status ?? -1,
    lines: run.stdout.split('\n').filter(Boolean),
    stderr: run.stderr.replace(/^make: \*\*\*.*\n?/gm, '').trim(),
    calls: read('calls').split('\n').filter(Boolean),
    applied: read('applied.yaml'),
  };
}
/** The lookups' probe as verify.sh runs it in n8n's pod, and the addresses it is given. */
const PROBE_CALL = /exec deploy\/n8n -c n8n -- node -e ([\s\S]*?\)\);) ((?:[0-9a-fA-F.:]+ ?)+)\n/;
const replace = (file: string, from: string | RegExp, to: string) =>
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));

describe('make k8s-verify', () => {
  it('passes a class whose pods are ready, whose keys are kept, and that no stranger reaches', () => {
    const run = verify(answers('class-ready'));
    expect(run.lines).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      "lab: verified 2 lab(s): every pod ready, every key kept, no lookup out of n8n's pod, n8n's database role no superuser, no lab reachable from another namespace",
    );
    expect(run.calls.at(-1)).toMatch(/^delete namespace soar-lab-verify --ignore-not-found --wait=false/);
  });

  it("asks n8n's pod and, as the control, the mock API's for lookups to every address where DNS answers", () => {
    const run = verify(answers('class-ready'));
    const calls = run.calls.join('\n');
    const execs = run.calls.filter((c) => c.startsWith('-n soar-lab-alice exec '));
    expect(execs.map((c) => c.replace(/ -- node -e .*$/, ''))).toEqual([
      '-n soar-lab-alice exec deploy/n8n -c n8n',
      '-n soar-lab-alice exec deploy/mock-api -c console',
      "-n soar-lab-alice exec postgres-0 -c postgres -- psql -U n8n -d n8n -tAc SELECT rolsuper FROM pg_roles WHERE rolname = 'n8n'",
    ]);
    const [, , addresses] = PROBE_CALL.exec(calls) ?? [];
    // NodeLocal DNSCache, the metadata server, and the DNS Service the cluster names.
    expect(addresses?.trim().split(' ').sort()).toEqual(['10.96.0.10', '169.254.169.254', '169.254.20.10']);
  });

  it('the probe says open for any answer, a refusal too, and closed when none comes back', async () => {
    const [, probe] = PROBE_CALL.exec(verify(answers('class-ready')).calls.join('\n')) ?? [];
    expect(probe).toBeDefined();
    // A resolver that refuses every query, one that never answers, and a port where nothing listens.
    const refusing = createSocket('udp4');
    refusing.on('message', (msg, from) => {
      const answer = Buffer.from(msg);
      answer[2] = 0x80 | (msg[2] ?? 0);
      answer[3] = 0x05; // REFUSED
      refusing.send(answer, from.port, from.address);
    });
    const silent = createSocket('udp4');
    const nobody = createSocket('udp4');
    const port = async (s: ReturnType<typeof createSocket>) => {
      await new Promise<void>((done) => s.bind(0, '127.0.0.1', done));
      return s.address().port;
    };
    const [a, b, c] = [await port(refusing), await port(silent), await port(nobody)];
    nobody.close();
    try {
      const out = await new Promise<string>((done, failed) =>
        execFile(
          process.execPath,
          ['-e', String(probe), `127.0.0.1:${a}`, `127.0.0.1:${b}`, `127.0.0.1:${c}`],
          { timeout: 20_000 },
          (err, stdout) => (err ? failed(err) : done(stdout)),
        ),
      );
      expect(out.trim().split('\n').slice(1)).toEqual([
        `open 127.0.0.1:${a}`,
        `closed 127.0.0.1:${b}`,
        `closed 127.0.0.1:${c}`,
      ]);
    } finally {
      refusing.close();
      silent.close();
    }
  });

  it('on a cluster that does not enforce NetworkPolicy: a line for every door the stranger opened', () => {
    const run = verify(answers('unenforcing'));
    expect(run.code).not.toBe(0);
    const because = '(the network plugin does not enforce NetworkPolicy)';
    expect(run.lines).toEqual([
      ...['alice', 'bob'].map(
        (name) =>
          `${name}: n8n's pod gets answers from the DNS server at 10.96.0.10 (a workflow's lookups could carry data out: the network plugin does not enforce NetworkPolicy)`,
      ),
      ...['alice', 'bob'].flatMap((name) =>
        ['mock-api:8081', 'postgres:5432', 'n8n:5678', 'console:8088'].map(
          (door) => `${name}: a pod in another namespace reaches ${door} ${because}`,
        ),
      ),
    ]);
    expect(run.stderr).toBe('lab: 10 failure(s) in 2 lab(s)');
  });

  it('one enforcement gap, one line', () => {
    const run = verify(
      answers('class-ready', (d) =>
        replace(join(d, 'probe-output'), 'closed postgres.soar-lab-bob', 'open postgres.soar-lab-bob'),
      ),
    );
    expect(run.lines).toEqual([
      'bob: a pod in another namespace reaches postgres:5432 (the network plugin does not enforce NetworkPolicy)',
    ]);
  });

  it.each([
    [
      'a pod that is not ready, with its reason',
      (d: string) =>
        replace(
          join(d, 'soar-lab-alice/pods'),
          'n8n-7b5f9c6d8-k4m2p True  ',
          'n8n-7b5f9c6d8-k4m2p False  CrashLoopBackOff',
        ),
      'alice: n8n not ready (pod n8n-7b5f9c6d8-k4m2p: CrashLoopBackOff; kubectl -n soar-lab-alice describe pod n8n-7b5f9c6d8-k4m2p)',
    ],
    [
      'a set-up stuck in its init container',
      (d: string) =>
        replace(
          join(d, 'soar-lab-bob/pods'),
          'mock-api-6c9d8b7f4d-q7w2x True  ',
          'mock-api-6c9d8b7f4d-q7w2x False CrashLoopBackOff ',
        ),
      'bob: mock-api not ready (pod mock-api-6c9d8b7f4d-q7w2x: CrashLoopBackOff; kubectl -n soar-lab-bob describe pod mock-api-6c9d8b7f4d-q7w2x)',
    ],
    [
      'a part with no pod',
      (d: string) => replace(join(d, 'soar-lab-alice/pods'), /^postgres .*\n/m, ''),
      'alice: no pod of postgres',
    ],
    [
      'a key not kept',
      (d: string) => writeFileSync(join(d, 'soar-lab-bob/lab-api-key'), ''),
      "bob: the lab's key for n8n's API is not kept (Secret lab-api-key is empty): kubectl -n soar-lab-bob logs deploy/mock-api -c n8n-setup",
    ],
    [
      'a lab not applied',
      (d: string) => writeFileSync(join(d, 'namespaces'), 'soar-lab-bob\n'),
      'alice: no namespace soar-lab-alice (kubectl apply -f labs/k8s/class.yaml first)',
    ],
    [
      "n8n's pod with the cluster's resolver (the base before n8n lost DNS, on an enforcing cluster)",
      (d: string) => replace(join(d, 'soar-lab-alice/n8n-lookups'), 'closed resolver', 'open resolver'),
      "alice: n8n's pod resolves names (its resolver is not loopback alone: kubectl -n soar-lab-alice get deploy n8n -o jsonpath='{.spec.template.spec.dnsConfig}')",
    ],
    [
      "n8n's pod answered by NodeLocal DNSCache",
      (d: string) =>
        replace(join(d, 'soar-lab-bob/n8n-lookups'), 'closed 169.254.20.10', 'open 169.254.20.10'),
      "bob: n8n's pod gets answers from the DNS server at 169.254.20.10 (a workflow's lookups could carry data out: the network plugin does not enforce NetworkPolicy)",
    ],
    [
      "a control that got no answer either (n8n's closed doors prove nothing)",
      (d: string) =>
        writeFileSync(join(d, 'soar-lab-alice/mock-api-lookups'), 'closed resolver\nclosed 10.96.0.10\n'),
      "alice: n8n's lookups not checked: the mock API's pod got no answer from any DNS server either, so n8n's closed doors prove nothing",
    ],
    [
      'a pod that cannot be asked',
      (d: string) => rmSync(join(d, 'soar-lab-bob/n8n-lookups')),
      "bob: n8n's lookups not checked: kubectl -n soar-lab-bob exec failed",
    ],
    [
      "n8n's database role a superuser (a lab made before)",
      (d: string) => writeFileSync(join(d, 'soar-lab-alice/n8n-role'), 't\n'),
      'alice: n8n\'s database role is a superuser (its database was made before the lab made n8n\'s role apart: docs/kubernetes.md, "Labs made before")',
    ],
    [
      'a database that cannot be asked',
      (d: string) => rmSync(join(d, 'soar-lab-bob/n8n-role')),
      "bob: n8n's database role not checked: kubectl -n soar-lab-bob exec postgres-0 failed",
    ],
    [
      'a stranger that never finished',
      (d: string) => rmSync(join(d, 'probe-finished')),
      "isolation not checked: the stranger's pod did not finish (kubectl -n soar-lab-verify describe pod stranger)",
    ],
    [
      'a stranger that reached nothing, not even the API server (its closed doors prove nothing)',
      (d: string) => replace(join(d, 'probe-output'), 'open kubernetes', 'closed kubernetes'),
      'isolation not checked: the stranger reached not even the API server, so its closed doors prove nothing',
    ],
  ])('fails on %s, in one line', (_, change, line) => {
    const run = verify(answers('class-ready', change));
    expect(run.lines).toEqual([line]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toBe('lab: 1 failure(s) in 2 lab(s)');
  });

  it("the stranger's pod is valid, restricted, in a namespace of its own, and dials every lab's doors", () => {
    const run = verify(answers('class-ready'));
    const [ns, pod] = documents(run.applied);
    expect(ns?.metadata.name).toBe('soar-lab-verify');
    expect(ns?.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of [ns, pod]) expect(schemaError(o ?? {})).toBe('');
    expect(podViolations({ ...pod, kind: 'Pod' })).toEqual([]);
    const targets = pod?.spec.containers[0].command.slice(3);
    expect(targets).toContain('kubernetes.default.svc:443');
    expect(targets).toContain('mock-api.soar-lab-bob.svc:8081');
    expect(targets).toEqual([
      'kubernetes.default.svc:443',
      ...['alice', 'bob'].flatMap((name) =>
        ['mock-api:8081', 'postgres:5432', 'n8n:5678', 'console:8088'].map((door) => {
          const [service, port] = door.split(':');
          return `${service}.soar-lab-${name}.svc:${port}`;
        }),
      ),
    ]);
  });

  it('refuses in one line when it cannot ask the cluster', () => {
    const run = verify(join(ANSWERS, 'unreachable'));
    expect(run.code).not.toBe(0);
    expect(run.lines).toEqual([]);
    expect(run.stderr).toBe(
      'lab: cannot ask the cluster kubectl points at (The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?)',
    );
  });

  it('refuses an empty roster in one line', () => {
    const run = verify(answers('class-ready'), '# nobody\n');
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^lab: ROSTER=.* names nobody$/);
  });
});
