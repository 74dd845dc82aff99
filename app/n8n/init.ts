/**
 * The Kubernetes lab's set-up (the init container of the mock API's pod,
 * deploy/kubernetes/base/mock-api.yaml), on every start of the pod: waits until n8n main is ready, makes or finds the owner (the
 * lab's login), and makes sure the lab has one key for n8n's public API, kept where the next start finds it
 * (the lab's Secret on a cluster: app/n8n/k8s-init.ts; a file otherwise). A kept key that n8n still
 * accepts is used as it is, with no login: a trainee who changed the password changes nothing here. A new
 * key is made only when none is kept or n8n refuses the kept one, and only when the store can be read, so
 * that the next start finds it. When no key can be had, the set-up says why and ends normally: the mock API
 * and the console start all the same (Reset then clears the systems without stopping runs). In demo mode
 * it publishes the reference workflows; a refused publish (a trainee's workflow holds the path) is said.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { type ClientOptions, N8nError, type Owner, setupOwner } from './client.js';
import { setupLab } from './setup.js';
import { importSolution, readReferences, SolutionRefused } from './solution.js';

/** Where the lab's key is kept between starts of the pod. */
export interface KeyStore {
  /** Named in the lines said. */
  readonly where: string;
  /** The kept key, '' when none is kept yet; throws when the store cannot be read. */
  read(): Promise<string>;
  write(key: string): Promise<void>;
}

/** The key in a file of its own (private). */
export function fileKeyStore(path: string): KeyStore {
  return {
    where: path,
    read: async () => (existsSync(path) ? readFileSync(path, 'utf8').trim() : ''),
    write: async (key) => writeFileSync(path, key, { mode: 0o600 }),
  };
}

export interface InitOptions {
  n8n: ClientOptions;
  owner: Owner;
  /** Where the key is kept; without it, the file keyFile. */
  store?: KeyStore;
  keyFile?: string;
  demo: boolean;
  /** The reference workflows' files for demo mode (default: every *.json in /lab/workflows). */
  workflows?: string[];
  /** How long to wait for n8n's readiness, and how often to ask. */
  waitMs: number;
  pollMs: number;
  /** One line per outcome, as it happens. */
  say: (line: string) => void;
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz/readiness', url), { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

export async function waitForN8n(url: string, waitMs: number, pollMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  while (!(await ready(url))) {
    if (Date.now() >= until)
      throw new Error(`n8n at ${url} was not ready within ${Math.round(waitMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const WITHOUT_KEY = 'the lab starts without one (Reset does not stop unfinished runs)';

/** The key the lab uses from now on, or undefined (said why) when none can be had. */
async function labKey(opts: InitOptions, store: KeyStore): Promise<string | undefined> {
  let held: string;
  try {
    held = await store.read();
  } catch (err) {
    // A key made now could not be found by the next start, which would make another.
    opts.say(`no key for n8n's API: ${store.where} cannot be read (${message(err)}); ${WITHOUT_KEY}`);
    return undefined;
  }
  let result: Awaited<ReturnType<typeof setupLab>>;
  try {
    result = await setupLab(opts.n8n, opts.owner, held || undefined);
  } catch (err) {
    if (!(err instanceof N8nError && err.status === 401)) throw err;
    const why = held ? 'n8n refuses the kept key' : 'no key is kept';
    opts.say(
      `no key for n8n's API: ${why} and n8n refuses the lab's first password (changed since?); ${WITHOUT_KEY}`,
    );
    return undefined;
  }
  if (result.key.kept) {
    opts.say(`api key kept in ${store.where}`);
    return held;
  }
  try {
    await store.write(result.key.raw);
    opts.say(`api key made and kept in ${store.where}`);
  } catch (err) {
    opts.say(
      `api key made, but it could not be kept in ${store.where} (${message(err)}): used for this start`,
    );
  }
  return result.key.raw;
}

export async function initLab(opts: InitOptions): Promise<string | undefined> {
  const store = opts.store ?? (opts.keyFile ? fileKeyStore(opts.keyFile) : undefined);
  if (!store) throw new Error('the set-up needs a place to keep the key (a store or a key file)');
  await waitForN8n(opts.n8n.url, opts.waitMs, opts.pollMs);
  opts.say(`owner ${await setupOwner(opts.n8n, opts.owner)}`);
  const key = await labKey(opts, store);
  if (!opts.demo) return key;
  if (key === undefined) {
    opts.say("the reference workflows were not published: no key for n8n's API");
    return key;
  }
  try {
    for (const line of await importSolution(opts.n8n, key, readReferences(opts.workflows ?? [])))
      opts.say(line);
  } catch (err) {
    if (!(err instanceof SolutionRefused)) throw err;
    opts.say(`the reference workflows were not published: ${err.message}`);
  }
  return key;
}
