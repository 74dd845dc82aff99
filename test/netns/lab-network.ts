/**
 * A miniature of the lab's network, built from Linux network namespaces: the mock API in an "api"
 * namespace on an internal bridge shared only with a "worker" namespace, and an "outside" namespace on
 * a second bridge. Both bridges live in a "switch" namespace with forwarding off, like Docker's
 * `internal: true` network: nothing routes between them. Every device and address (10.213.0.0/16) exists
 * only inside namespaces made here; the host's own network is never touched. Names carry the pid.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const API_ADDRESS = '10.213.1.2';
export const WORKER_ADDRESS = '10.213.1.10';
export const OUTSIDE_ADDRESS = '10.213.2.20';
/** The lab console's namespace: on the outside ("editor") bridge, never on the internal one. */
export const CONSOLE_ADDRESS = '10.213.2.30';
/** The leak control's second address for the api, on the outside bridge. */
export const API_LEAK_ADDRESS = '10.213.2.2';
export const API_PORT = 8081;
export const OUTSIDE_PORT = 8080;

/** Why this machine cannot run the test (not root, no `ip`, no netns), or null. */
export function skipReason(): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux';
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore', timeout: 5000 });
  } catch {
    return '`ip` (iproute2) is missing';
  }
  const probe = `slprobe${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'ignore', timeout: 5000 });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'ignore', timeout: 5000 });
  } catch {
    return '`ip netns add` is not permitted here';
  }
  return null;
}

export class LabNetwork {
  readonly names: { switch: string; api: string; worker: string; outside: string; console: string };
  readonly #children: ChildProcess[] = [];
  readonly #made: string[] = [];
  readonly #exitHook = () => this.destroySync();

  constructor(tag = `sl${process.pid}`) {
    this.names = {
      switch: `${tag}-sw`,
      api: `${tag}-api`,
      worker: `${tag}-wrk`,
      outside: `${tag}-out`,
      console: `${tag}-con`,
    };
  }

  async #ip(...args: string[]): Promise<void> {
    await run('ip', args, { timeout: 5000 });
  }

  /** Namespaces, the two bridges, and one veth per namespace (peer made directly inside its namespace). */
  async create(): Promise<void> {
    process.once('exit', this.#exitHook);
    const { switch: sw, api, worker, outside, console } = this.names;
    for (const ns of [sw, api, worker, outside, console]) {
      await this.#ip('netns', 'add', ns);
      this.#made.push(ns);
      await this.#ip('-n', ns, 'link', 'set', 'lo', 'up');
    }
    for (const bridge of ['br-internal', 'br-outside']) {
      await this.#ip('-n', sw, 'link', 'add', bridge, 'type', 'bridge');
      await this.#ip('-n', sw, 'link', 'set', bridge, 'up');
    }
    await this.#attach(api, 'api', 'br-internal', `${API_ADDRESS}/24`);
    await this.#attach(worker, 'wrk', 'br-internal', `${WORKER_ADDRESS}/24`);
    await this.#attach(outside, 'out', 'br-outside', `${OUTSIDE_ADDRESS}/24`);
    await this.#attach(console, 'con', 'br-outside', `${CONSOLE_ADDRESS}/24`);
    // The outside and the console try as hard as they can: they claim the lab's subnet is on their link.
    await this.#ip('-n', outside, 'route', 'add', '10.213.1.0/24', 'dev', 'eth0');
    await this.#ip('-n', console, 'route', 'add', '10.213.1.0/24', 'dev', 'eth0');
  }

  async #attach(ns: string, port: string, bridge: string, address: string, dev = 'eth0'): Promise<void> {
    const sw = this.names.switch;
    await this.#ip('-n', sw, 'link', 'add', port, 'type', 'veth', 'peer', 'name', dev, 'netns', ns);
    await this.#ip('-n', sw, 'link', 'set', port, 'master', bridge);
    await this.#ip('-n', sw, 'link', 'set', port, 'up');
    await this.#ip('-n', ns, 'addr', 'add', address, 'dev', dev);
    await this.#ip('-n', ns, 'link', 'set', dev, 'up');
  }

  /** The leak control: the api also on the outside bridge, as if it were published. */
  async leakApiToOutside(): Promise<void> {
    await this.#attach(this.names.api, 'api-leak', 'br-outside', `${API_LEAK_ADDRESS}/24`, 'eth1');
  }

  /** Starts a long-running process in a namespace; resolves when its stdout shows `ready`. */
  async start(ns: string, command: string[], env: Record<string, string>, ready: RegExp): Promise<void> {
    const child = spawn('ip', ['netns', 'exec', ns, ...command], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#children.push(child);
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${command.join(' ')} not ready in 15 s: ${output}`)),
        15_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (ready.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${command.join(' ')} exited (${code}): ${output}`));
      });
    });
  }

  /** Whether an HTTP request from `ns` to `url` gets any answer within 1.5 s. */
  async reaches(ns: string, url: string): Promise<boolean> {
    const script =
      'fetch(process.argv[1],{signal:AbortSignal.timeout(1500)}).then(()=>process.exit(0),()=>process.exit(1))';
    try {
      await run('ip', ['netns', 'exec', ns, process.execPath, '-e', script, url], { timeout: 10_000 });
      return true;
    } catch {
      return false;
    }
  }

  /** The body of a GET from `ns`, or null without an answer within 1.5 s. */
  async read(ns: string, url: string): Promise<string | null> {
    const script =
      'fetch(process.argv[1],{signal:AbortSignal.timeout(1500)}).then(r=>r.text()).then(t=>process.stdout.write(t),()=>process.exit(1))';
    try {
      const { stdout } = await run('ip', ['netns', 'exec', ns, process.execPath, '-e', script, url], {
        timeout: 10_000,
      });
      return stdout;
    } catch {
      return null;
    }
  }

  async hasDefaultRoute(ns: string): Promise<boolean> {
    const { stdout } = await run('ip', ['-n', ns, 'route', 'show', 'default'], { timeout: 5000 });
    return stdout.trim() !== '';
  }

  /** Stops what it started and deletes its namespaces (their devices go with them). */
  destroySync(): void {
    for (const child of this.#children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const ns of this.#made.splice(0).reverse()) {
      try {
        execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore', timeout: 5000 });
      } catch {
        // already gone
      }
    }
    process.removeListener('exit', this.#exitHook);
  }
}
