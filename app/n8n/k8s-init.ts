/**
 * `cli.js k8s-init`: the Kubernetes lab's set-up container (app/n8n/init.ts), with the lab's key for
 * n8n's API kept in the Secret LAB_KEY_SECRET of the pod's own namespace. The container alone mounts a
 * service-account token whose Role may read and patch that one Secret (deploy/kubernetes/base/setup.yaml);
 * the console takes the key from the Secret when it starts. Without LAB_KEY_SECRET, the key is kept in the
 * file N8N_API_KEY_FILE (the set-up run against the compose lab's n8n in make test-lab).
 *
 * Env: N8N_URL, N8N_OWNER_EMAIL, N8N_OWNER_PASSWORD, LAB_MODE (exercise or demo); LAB_KEY_SECRET with
 * POD_NAMESPACE, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (set by the kubelet), or
 * N8N_API_KEY_FILE.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fileKeyStore, initLab, type KeyStore } from './init.js';

/** Where the token the pod's projected volume holds is read from (refreshed by the kubelet). */
export const TOKEN_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/token';
/** The data key of the Secret that holds the lab's key (the console's N8N_API_KEY). */
export const KEY_FIELD = 'N8N_API_KEY';
/** How long the set-up waits for n8n main to be ready: a first start on a busy node takes minutes. */
const WAIT_MS = 600_000;

const SecretSchema = z.object({ data: z.record(z.string(), z.string()).nullish() });

export interface SecretStoreOptions {
  /** The API server, e.g. https://10.96.0.1:443. */
  apiUrl: string;
  namespace: string;
  name: string;
  token: () => string;
  fetchImpl?: typeof fetch;
}

/** The key in one Secret, read and patched through the API server with the pod's token. */
export function secretKeyStore(o: SecretStoreOptions): KeyStore {
  const url = `${o.apiUrl.replace(/\/+$/, '')}/api/v1/namespaces/${encodeURIComponent(o.namespace)}/secrets/${encodeURIComponent(o.name)}`;
  const where = `the Secret ${o.namespace}/${o.name}`;
  const doFetch = o.fetchImpl ?? fetch;
  async function call(method: string, body?: unknown): Promise<unknown> {
    const res = await doFetch(url, {
      method,
      headers: {
        authorization: `Bearer ${o.token()}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/merge-patch+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`the API server answered ${res.status} to ${method}`);
    return text === '' ? null : JSON.parse(text);
  }
  return {
    where,
    async read() {
      const secret = SecretSchema.safeParse(await call('GET'));
      if (!secret.success) throw new Error('the API server sent no Secret');
      const value = secret.data.data?.[KEY_FIELD];
      return value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8').trim();
    },
    async write(key) {
      await call('PATCH', { data: { [KEY_FIELD]: Buffer.from(key, 'utf8').toString('base64') } });
    },
  };
}

const required = z.string('is not set').trim().min(1, 'is not set');
const EnvSchema = z.object({
  N8N_URL: required,
  N8N_OWNER_EMAIL: required,
  N8N_OWNER_PASSWORD: required,
  LAB_MODE: z.enum(['exercise', 'demo'], 'is not exercise or demo').default('exercise'),
  LAB_KEY_SECRET: z.string().trim().min(1).optional(),
  POD_NAMESPACE: z.string().trim().min(1).optional(),
  KUBERNETES_SERVICE_HOST: z.string().trim().min(1).optional(),
  KUBERNETES_SERVICE_PORT: z.string().trim().regex(/^\d+$/).optional(),
  N8N_API_KEY_FILE: z.string().trim().min(1).optional(),
});

/** The store the environment names; throws one line naming what is missing. */
export function storeFromEnv(env: z.infer<typeof EnvSchema>, fetchImpl?: typeof fetch): KeyStore {
  if (env.LAB_KEY_SECRET === undefined) {
    if (env.N8N_API_KEY_FILE === undefined) throw new Error('LAB_KEY_SECRET or N8N_API_KEY_FILE is needed');
    return fileKeyStore(env.N8N_API_KEY_FILE);
  }
  const { POD_NAMESPACE: namespace, KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: port } = env;
  if (!namespace || !host || !port)
    throw new Error(
      'LAB_KEY_SECRET needs POD_NAMESPACE, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT',
    );
  return secretKeyStore({
    apiUrl: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    namespace,
    name: env.LAB_KEY_SECRET,
    token: () => readFileSync(TOKEN_FILE, 'utf8').trim(),
    ...(fetchImpl ? { fetchImpl } : {}),
  });
}

/** The command: parses the environment, runs the set-up; one line per outcome through `say`. */
export async function k8sInit(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  say: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<{ lines: string[]; code: 0 }> {
  if (args.length > 0) throw new Error('k8s-init takes no argument');
  // An empty variable counts as unset, as in the other commands.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${String(issue?.path[0] ?? 'the environment')} ${issue?.message ?? 'is invalid'}`);
  }
  const e = parsed.data;
  await initLab({
    n8n: { url: e.N8N_URL },
    owner: {
      email: e.N8N_OWNER_EMAIL,
      password: e.N8N_OWNER_PASSWORD,
      firstName: 'Lab',
      lastName: 'Trainee',
    },
    store: storeFromEnv(e),
    demo: e.LAB_MODE === 'demo',
    waitMs: WAIT_MS,
    pollMs: 2000,
    say,
  });
  return { lines: [], code: 0 };
}
