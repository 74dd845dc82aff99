/**
 * No secret within a workflow's reach on a cluster either: n8n's environment, which a workflow reads whole
 * ($env), holds neither its database password nor its encryption key; n8n reads both from files
 * (DB_POSTGRESDB_PASSWORD_FILE, N8N_ENCRYPTION_KEY_FILE) of the Secret lab-secrets, mounted read-only with
 * those two keys alone, mode 0400, readable by n8n's user through the pod's fsGroup. And n8n's Postgres role
 * is no superuser: the superuser is another role, and compose's own init script (docker/postgres/initdb/,
 * the ConfigMap postgres-initdb byte for byte) makes role n8n NOSUPERUSER and database n8n owned by it. Each
 * check is shown to fail on a manifest broken on purpose, the old one first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAs } from './hardening.js';
import { containerEnv } from './kubelet.js';
import { documents, type K8sObject, podTemplate, ROOT, render } from './render.js';

const NS = 'soar-lab-alice';
/** n8n's secrets: the setting n8n reads, and the key of lab-secrets that holds it. */
const N8N_SECRETS: Record<string, string> = {
  DB_POSTGRESDB_PASSWORD: 'POSTGRES_PASSWORD',
  N8N_ENCRYPTION_KEY: 'N8N_ENCRYPTION_KEY',
};
const INITDB = `${ROOT}docker/postgres/initdb`;

let objects: K8sObject[];
beforeAll(() => {
  const run = render('alice\n');
  expect(run.code, run.stderr).toBe(0);
  objects = documents(run.manifests);
});

const find = (all: K8sObject[], kind: string, prefix: string) =>
  all.find(
    (o) => o.kind === kind && o.metadata.namespace === NS && o.metadata.name.startsWith(prefix),
  ) as K8sObject;
const podOf = (all: K8sObject[], kind: string, name: string) => podTemplate(find(all, kind, name)).spec;
const containersOf = (spec: K8sObject): K8sObject[] => [...(spec.initContainers ?? []), ...spec.containers];

/** Where n8n's secrets are within a workflow's reach, or not where n8n reads them: one line a finding. */
function n8nSecretViolations(all: K8sObject[]): string[] {
  const out: string[] = [];
  const pod = podOf(all, 'Deployment', 'n8n');
  const secret = find(all, 'Secret', 'lab-secrets');
  for (const c of containersOf(pod)) {
    for (const from of c.envFrom ?? [])
      if (from.secretRef) out.push(`${c.name}: the whole Secret ${from.secretRef.name} in its environment`);
    for (const e of c.env ?? [])
      if (e.valueFrom?.secretKeyRef)
        out.push(`${c.name}: ${e.name} in its environment, from the Secret ${e.valueFrom.secretKeyRef.name}`);
    const env = containerEnv(all, NS, pod, c, []);
    for (const name of Object.keys(N8N_SECRETS))
      if (Object.hasOwn(env, name)) out.push(`${c.name}: ${name} in its environment`);
  }
  const n8n = pod.containers.find((c: K8sObject) => c.name === 'n8n');
  const env = containerEnv(all, NS, pod, n8n, []);
  const secretVolumes = (pod.volumes ?? []).filter((v: K8sObject) => v.secret || v.projected);
  for (const v of secretVolumes) {
    const items: K8sObject[] = v.secret?.items ?? [];
    const keys = items.map((i) => i.key).sort();
    if (v.secret?.secretName !== 'lab-secrets' || keys.join() !== Object.values(N8N_SECRETS).sort().join())
      out.push(
        `volume ${v.name}: gives n8n's pod ${keys.join(', ') || `all of ${v.secret?.secretName ?? 'a projection'}`}, not n8n's two secrets alone`,
      );
    for (const i of items) {
      const mode = i.mode ?? v.secret?.defaultMode;
      if (mode !== 0o400)
        out.push(`volume ${v.name}: ${i.key} has mode ${mode?.toString(8) ?? 'default (0644)'}, not 0400`);
    }
  }
  for (const [name, key] of Object.entries(N8N_SECRETS)) {
    const path = env[`${name}_FILE`];
    if (!path) {
      out.push(`n8n: no ${name}_FILE`);
      continue;
    }
    const mount = (n8n.volumeMounts ?? []).find((m: K8sObject) => m.mountPath === dirname(path));
    const volume = secretVolumes.find((v: K8sObject) => v.name === mount?.name);
    const item = (volume?.secret?.items ?? []).find((i: K8sObject) => i.path === basename(path));
    if (!mount || !volume) out.push(`n8n: ${name}_FILE=${path} is in no Secret mounted in n8n's container`);
    else if (item?.key !== key) out.push(`n8n: ${name}_FILE=${path} is not the Secret's ${key}`);
    else if (mount.readOnly !== true) out.push(`n8n: the Secret at ${mount.mountPath} is mounted writable`);
    if (!Object.hasOwn(secret?.data ?? {}, key)) out.push(`the Secret lab-secrets holds no ${key}`);
  }
  // The kubelet gives a Secret's files to the pod's fsGroup and adds that group's read: n8n reads them
  // through its group, the only way a file of mode 0400 owned by root is n8n's to read.
  const { uid, gid } = runAs(pod, n8n);
  const fsGroup = pod.securityContext?.fsGroup;
  if (fsGroup === undefined || fsGroup !== gid)
    out.push(
      `n8n (uid ${uid}, gid ${gid}) cannot read its secrets' files: the pod's fsGroup is ${fsGroup ?? 'unset'}`,
    );
  return out;
}

describe("n8n's secrets: files, never its environment", () => {
  it('reads its database password and encryption key from files of lab-secrets, those two alone, 0400', () => {
    expect(n8nSecretViolations(objects)).toEqual([]);
    const pod = podOf(objects, 'Deployment', 'n8n');
    const env = containerEnv(objects, NS, pod, pod.containers[0], []);
    expect(env).toMatchObject({
      DB_POSTGRESDB_PASSWORD_FILE: '/run/n8n-secrets/db-password',
      N8N_ENCRYPTION_KEY_FILE: '/run/n8n-secrets/encryption-key',
    });
    // Nothing of the lab's Secrets anywhere in n8n's pod's environment.
    for (const c of containersOf(pod))
      expect(
        Object.values(containerEnv(objects, NS, pod, c, [])).filter((v) => v.startsWith('<secret:')),
      ).toEqual([]);
  });

  it('control: the pod as it was (both secrets in the environment from the Secret) fails', () => {
    const old = structuredClone(objects);
    const pod = podOf(old, 'Deployment', 'n8n');
    const n8n = pod.containers[0];
    n8n.env.unshift(
      {
        name: 'DB_POSTGRESDB_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'lab-secrets', key: 'POSTGRES_PASSWORD' } },
      },
      {
        name: 'N8N_ENCRYPTION_KEY',
        valueFrom: { secretKeyRef: { name: 'lab-secrets', key: 'N8N_ENCRYPTION_KEY' } },
      },
    );
    pod.volumes = pod.volumes.filter((v: K8sObject) => !v.secret);
    n8n.volumeMounts = n8n.volumeMounts.filter((m: K8sObject) => m.name !== 'secrets');
    const cm = find(old, 'ConfigMap', 'n8n-settings-');
    delete cm.data.DB_POSTGRESDB_PASSWORD_FILE;
    delete cm.data.N8N_ENCRYPTION_KEY_FILE;
    const found = n8nSecretViolations(old).join('\n');
    expect(found).toContain('n8n: DB_POSTGRESDB_PASSWORD in its environment, from the Secret lab-secrets');
    expect(found).toContain('n8n: N8N_ENCRYPTION_KEY in its environment');
    expect(found).toContain('n8n: no DB_POSTGRESDB_PASSWORD_FILE');
  });

  it.each([
    [
      'the whole Secret in the environment',
      (all: K8sObject[]) =>
        podOf(all, 'Deployment', 'n8n').containers[0].envFrom.push({ secretRef: { name: 'lab-secrets' } }),
      'the whole Secret lab-secrets in its environment',
    ],
    [
      'the password given as a value besides',
      (all: K8sObject[]) =>
        podOf(all, 'Deployment', 'n8n').containers[0].env.push({
          name: 'DB_POSTGRESDB_PASSWORD',
          value: 'x',
        }),
      'n8n: DB_POSTGRESDB_PASSWORD in its environment',
    ],
    [
      "every key of the Secret mounted (the login's, the console's)",
      (all: K8sObject[]) => {
        delete podOf(all, 'Deployment', 'n8n').volumes.find((v: K8sObject) => v.secret).secret.items;
      },
      "gives n8n's pod all of lab-secrets, not n8n's two secrets alone",
    ],
    [
      'a mode any user reads',
      (all: K8sObject[]) => {
        podOf(all, 'Deployment', 'n8n').volumes.find((v: K8sObject) => v.secret).secret.defaultMode = 0o644;
      },
      'has mode 644, not 0400',
    ],
    [
      'the files where n8n does not read them',
      (all: K8sObject[]) => {
        podOf(all, 'Deployment', 'n8n').containers[0].volumeMounts.find(
          (m: K8sObject) => m.name === 'secrets',
        ).mountPath = '/run/secrets';
      },
      "DB_POSTGRESDB_PASSWORD_FILE=/run/n8n-secrets/db-password is in no Secret mounted in n8n's container",
    ],
    [
      'the two files swapped',
      (all: K8sObject[]) => {
        const [a, b] = podOf(all, 'Deployment', 'n8n').volumes.find((v: K8sObject) => v.secret).secret.items;
        [a.path, b.path] = [b.path, a.path];
      },
      "is not the Secret's POSTGRES_PASSWORD",
    ],
    [
      'no fsGroup (root-owned files of mode 0400 n8n cannot read)',
      (all: K8sObject[]) => {
        delete podOf(all, 'Deployment', 'n8n').securityContext.fsGroup;
      },
      "cannot read its secrets' files: the pod's fsGroup is unset",
    ],
  ])('fails with %s', (_, breakIt, reason) => {
    const broken = structuredClone(objects);
    breakIt(broken);
    expect(n8nSecretViolations(broken).join('\n')).toContain(reason);
  });
});

/** The init scripts of compose.yaml's Postgres, by name. */
function initScripts(): Record<string, string> {
  return Object.fromEntries(readdirSync(INITDB).map((f) => [f, readFileSync(`${INITDB}/${f}`, 'utf8')]));
}

/** Where n8n's Postgres role could be a superuser, or the init script is not compose's: one line a finding. */
function postgresViolations(all: K8sObject[], scripts = initScripts()): string[] {
  const out: string[] = [];
  const pod = podOf(all, 'StatefulSet', 'postgres');
  const pg = pod.containers.find((c: K8sObject) => c.name === 'postgres');
  const env = containerEnv(all, NS, pod, pg, []);
  const superuser = env.POSTGRES_USER ?? 'postgres';
  const n8nUser = find(all, 'ConfigMap', 'n8n-settings-')?.data?.DB_POSTGRESDB_USER;
  if (superuser === n8nUser) out.push(`Postgres's superuser is n8n's role (POSTGRES_USER=${superuser})`);
  if (env.POSTGRES_DB !== undefined && env.POSTGRES_DB === n8nUser)
    out.push(
      `the image makes n8n's database itself, owned by the superuser (POSTGRES_DB=${env.POSTGRES_DB})`,
    );
  if (env.POSTGRES_PASSWORD !== undefined || env.POSTGRES_PASSWORD_FILE !== '/proc/sys/kernel/random/uuid')
    out.push(
      "the superuser's password is not a random one nobody knows (POSTGRES_PASSWORD_FILE=/proc/sys/kernel/random/uuid)",
    );
  // n8n's password, for the script: the Secret's key that n8n's own file holds.
  if (env.N8N_DB_PASSWORD !== '<secret:lab-secrets/POSTGRES_PASSWORD>')
    out.push(`the init script gets ${env.N8N_DB_PASSWORD ?? 'no'} N8N_DB_PASSWORD, not n8n's password`);
  const mount = (pg.volumeMounts ?? []).find((m: K8sObject) => m.mountPath === '/docker-entrypoint-initdb.d');
  const volume = (pod.volumes ?? []).find((v: K8sObject) => v.name === mount?.name);
  const cm =
    volume?.configMap && all.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume.configMap.name);
  if (!cm) out.push('no init script mounted at /docker-entrypoint-initdb.d');
  else {
    const data: Record<string, string> = cm.data ?? {};
    for (const f of new Set([...Object.keys(data), ...Object.keys(scripts)]))
      if (data[f] !== scripts[f]) out.push(`init script ${f}: not docker/postgres/initdb/${f} byte for byte`);
    const sql = Object.values(data).join('\n');
    if (!/CREATE ROLE n8n LOGIN NOSUPERUSER\b[^;]*PASSWORD :'n8n_password'/.test(sql))
      out.push("the init script makes no role n8n NOSUPERUSER with n8n's password");
    if (!/CREATE DATABASE n8n OWNER n8n;/.test(sql))
      out.push('the init script makes no database n8n owned by n8n');
    if (/ALTER ROLE n8n\b[^;]*\bSUPERUSER\b/i.test(sql.replace(/NOSUPERUSER/g, '')))
      out.push('the init script makes n8n a superuser after all');
  }
  return out;
}

describe("n8n's Postgres role: no superuser, the owner of its database", () => {
  it("the superuser is another role; compose's init script makes n8n's role and database", () => {
    expect(Object.keys(initScripts()).length).toBeGreaterThan(0);
    expect(postgresViolations(objects)).toEqual([]);
  });

  it('control: the StatefulSet as it was (POSTGRES_USER=n8n, the superuser; no init script) fails', () => {
    const old = structuredClone(objects);
    const pg = podOf(old, 'StatefulSet', 'postgres').containers[0];
    pg.env = [
      { name: 'POSTGRES_USER', value: 'n8n' },
      { name: 'POSTGRES_DB', value: 'n8n' },
      {
        name: 'POSTGRES_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'lab-secrets', key: 'POSTGRES_PASSWORD' } },
      },
    ];
    pg.volumeMounts = pg.volumeMounts.filter((m: K8sObject) => m.name !== 'initdb');
    const found = postgresViolations(old).join('\n');
    expect(found).toContain("Postgres's superuser is n8n's role (POSTGRES_USER=n8n)");
    expect(found).toContain('the image makes n8n');
    expect(found).toContain('no init script mounted at /docker-entrypoint-initdb.d');
  });

  it.each([
    [
      'a superuser password of the lab (a credential n8n could come to know)',
      (all: K8sObject[]) => {
        podOf(all, 'StatefulSet', 'postgres').containers[0].env.push({
          name: 'POSTGRES_PASSWORD',
          value: 'known',
        });
      },
      "the superuser's password is not a random one nobody knows",
    ],
    [
      'another password for the init script than n8n reads',
      (all: K8sObject[]) => {
        podOf(all, 'StatefulSet', 'postgres').containers[0].env.find(
          (e: K8sObject) => e.name === 'N8N_DB_PASSWORD',
        ).valueFrom.secretKeyRef.key = 'CONSOLE_SECRET';
      },
      "not n8n's password",
    ],
  ])('fails with %s', (_, breakIt, reason) => {
    const broken = structuredClone(objects);
    breakIt(broken);
    expect(postgresViolations(broken).join('\n')).toContain(reason);
  });

  it.each([
    [
      "a copy that differs from compose's script",
      (s: string) => `${s}-- changed\n`,
      'not docker/postgres/initdb/10-n8n.sql byte for byte',
    ],
    [
      'a script that makes n8n a superuser',
      (s: string) => s.replace('NOSUPERUSER', 'SUPERUSER'),
      'makes no role n8n NOSUPERUSER',
    ],
    [
      "a script that makes the database the superuser's",
      (s: string) => s.replace('OWNER n8n', 'OWNER postgres'),
      'no database n8n owned by n8n',
    ],
  ])('fails on %s', (_, change, reason) => {
    const broken = structuredClone(objects);
    const cm = find(broken, 'ConfigMap', 'postgres-initdb-');
    const [file] = Object.keys(cm.data);
    cm.data[file as string] = change(cm.data[file as string]);
    expect(postgresViolations(broken).join('\n')).toContain(reason);
  });

  it('control: a script added to docker/postgres/initdb but not carried into the ConfigMap fails', () => {
    expect(
      postgresViolations(objects, { ...initScripts(), '20-more.sql': 'SELECT 1;\n' }).join('\n'),
    ).toContain('init script 20-more.sql: not docker/postgres/initdb/20-more.sql byte for byte');
  });
});
