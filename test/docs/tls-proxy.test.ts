/**
 * The trainer's guide's TLS proxy (deploy/tls/nginx.conf.example): its rules read from the file (TLS on
 * every port, the labs' own port numbers, each passed to the same port on loopback, X-Forwarded-For
 * written over), then, with Debian's nginx installed, `nginx -t` on it and a sign-in through it, rendered
 * for one console: the proxy's origin accepted, the cookie Secure, the session bound to the address nginx
 * saw, whatever X-Forwarded-For the browser sends.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { loadConsoleConfig, sessionSettings } from '../../app/console/config.js';
import { Sessions } from '../../app/console/session.js';
import { standInDeps } from '../console/stand-in-deps.js';
import { serveOnLoopback } from '../helpers/loopback-http.js';

const EXAMPLE = new URL('../../deploy/tls/nginx.conf.example', import.meta.url).pathname;
const example = readFileSync(EXAMPLE, 'utf8');
const nginx = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => spawnSync(p, ['-v']).status === 0);
const work = mkdtempSync(join(tmpdir(), 'tls-proxy-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The directives, comments dropped: `name args...` each, `{`/`}` as their own entries. */
function directives(text: string): string[] {
  const tokens = text
    .replace(/#.*$/gm, '')
    .replace(/([{};])/g, ' $1 ')
    .split(/\s+/)
    .filter(Boolean);
  const out: string[] = [];
  let words: string[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token === ';' || token === '{' || token === '}') {
      if (token === '}' && words.length > 0) throw new Error(`"${words.join(' ')}" lacks its ;`);
      if (words.length > 0) out.push(words.join(' '));
      words = [];
      if (token !== ';') out.push(token);
      depth += token === '{' ? 1 : token === '}' ? -1 : 0;
      if (depth < 0) throw new Error('a } closes nothing');
    } else words.push(token);
  }
  if (depth !== 0 || words.length > 0) throw new Error('a block or a directive is left open');
  return out;
}

describe('the TLS proxy example (deploy/tls/nginx.conf.example)', () => {
  const read = directives(example);

  it("serves TLS on the labs' own ports, each passed to the same port on loopback", () => {
    const listens = read.filter((d) => d.startsWith('listen '));
    expect(listens.length).toBeGreaterThan(0);
    for (const listen of listens) expect(listen).toMatch(/^listen 192\.0\.2\.5:\d+ ssl$/);
    // The single lab and two of a class, as docker/lab/values.sh numbers them: 5678 + slot, 8088 + slot.
    const ports = listens.map((l) => Number(/:(\d+)/.exec(l)?.[1]));
    expect(ports).toEqual([5678, 8088, 5679, 8089, 5680, 8090]);
    expect(read).toContain('proxy_pass http://127.0.0.1:$server_port');
    expect(read.filter((d) => d.startsWith('ssl_certificate'))).toHaveLength(2);
  });

  it('writes X-Forwarded-For over (the console binds a sign-in to it) and passes the Host with its port', () => {
    expect(read).toContain('proxy_set_header X-Forwarded-For $remote_addr');
    expect(example).not.toContain('$proxy_add_x_forwarded_for');
    expect(read).toContain('proxy_set_header Host $http_host');
  });

  it.runIf(nginx)("passes nginx's own check (nginx -t)", () => {
    // nginx -t binds each address: a loopback one stands in for the classroom's.
    const r = check(renderExample({ address: '127.0.0.2', ports: null }));
    expect(r.stderr).toMatch(/test is successful/);
    expect(r.status).toBe(0);
  });

  it.runIf(nginx)(
    'fronts a console: its origin accepted, the cookie Secure, the session bound to the address nginx saw',
    async () => {
      const console = await serveConsole();
      const proxy = await startNginx(renderExample({ address: '127.0.0.2', ports: [console.port] }));
      try {
        const origin = `https://lab.example.org:${console.port}`;
        const signIn = await viaProxy(console.port, '/login', {
          from: '127.0.0.3',
          method: 'POST',
          headers: {
            origin,
            'content-type': 'application/x-www-form-urlencoded',
            'sec-fetch-site': 'same-origin',
          },
          body: 'secret=the-lab-secret-0123',
        });
        expect(signIn.status).toBe(303);
        expect(signIn.cookie).toMatch(/; Secure; SameSite=Strict$/);
        const cookie = signIn.cookie.split(';')[0] ?? '';
        const session = (from: string, forwarded?: string) =>
          viaProxy(console.port, '/api/session', {
            from,
            headers: { cookie, origin, ...(forwarded ? { 'x-forwarded-for': forwarded } : {}) },
          });
        expect((await session('127.0.0.3')).status).toBe(200);
        // Another browser with the cookie, even one that names the first one's address, is refused.
        expect((await session('127.0.0.4')).status).toBe(401);
        expect((await session('127.0.0.4', '127.0.0.3')).status).toBe(401);
      } finally {
        await proxy.stop();
        await console.close();
      }
    },
  );
});

/** The example with a self-signed certificate, listening on `address` (on `ports` only, when given). */
function renderExample(at: { address: string; ports: number[] | null }): string {
  const cert = join(work, 'lab.crt');
  const key = join(work, 'lab.key');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=lab.example.org',
      '-addext',
      'subjectAltName=DNS:lab.example.org',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  let text = example
    .replaceAll('/etc/ssl/soar-lab/lab.example.org.crt', cert)
    .replaceAll('/etc/ssl/soar-lab/lab.example.org.key', key)
    .replaceAll('192.0.2.5', at.address);
  if (at.ports !== null) {
    const listens = at.ports.map((p) => `    listen ${at.address}:${p} ssl;`).join('\n');
    text = text.replace(/(\s*listen .*\n)+/, `\n${listens}\n`);
  }
  const site = join(work, 'soar-lab.conf');
  writeFileSync(site, text);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `${t}_temp_path ${join(work, t)};`)
    .join(' ');
  const main = join(work, 'nginx.conf');
  writeFileSync(
    main,
    `pid ${join(work, 'nginx.pid')};\nerror_log ${join(work, 'error.log')};\nevents {}\nhttp { access_log off; ${temp} include ${site}; }\n`,
  );
  return main;
}

const nginxArgs = (main: string) => ['-p', `${work}/`, '-e', join(work, 'error.log'), '-c', main];

function check(main: string) {
  return spawnSync(nginx ?? 'nginx', ['-t', ...nginxArgs(main)], { encoding: 'utf8' });
}

async function startNginx(main: string) {
  // One process, as this user: no workers to change to another user.
  const child = spawn(nginx ?? 'nginx', [...nginxArgs(main), '-g', 'daemon off; master_process off;'], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  while (spawnSync('sh', ['-c', `test -s ${join(work, 'nginx.pid')}`]).status !== 0) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`nginx did not start: ${readFileSync(join(work, 'error.log'), 'utf8')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGQUIT');
      }),
  };
}

/** A console behind the lab's secret and LAB_PUBLIC_ORIGIN, on 127.0.0.1 (its port the proxied one). */
async function serveConsole() {
  const app = (port: number) => {
    const config = loadConsoleConfig({
      CONSOLE_SECRET: 'the-lab-secret-0123',
      CONSOLE_PUBLISHED_PORT: String(port),
      LAB_PUBLIC_ORIGIN: 'https://lab.example.org',
    });
    return createConsoleApp(
      standInDeps({ sessions: new Sessions('the-lab-secret-0123', sessionSettings(config)) }),
    );
  };
  // The port is known once listening: the app that answers is made for it.
  let handler: ReturnType<typeof app> | undefined;
  const served = await serveOnLoopback((req, env) =>
    handler ? handler.fetch(req, env) : new Response(null, { status: 503 }),
  );
  handler = app(served.port);
  return served;
}

/** HTTPS to the proxy on 127.0.0.2, as a browser that typed https://lab.example.org:<port>. */
function viaProxy(
  port: number,
  path: string,
  init: { from: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; cookie: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.2',
        port,
        path,
        method: init.method ?? 'GET',
        localAddress: init.from,
        servername: 'lab.example.org',
        ca: readFileSync(join(work, 'lab.crt')),
        headers: {
          host: `lab.example.org:${port}`,
          ...(init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) }),
          ...init.headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, cookie: [res.headers['set-cookie'] ?? ''].flat().join('') }),
        );
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
