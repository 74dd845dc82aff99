/**
 * What the tests of a service over TLS share: a class CA and a certificate for 127.0.0.1 made by
 * docker/lab/tls.sh (the lab's own script, openssl) in a folder of the test file's own, removed after its
 * tests; a free loopback port; a plain-HTTP GET on a raw socket; an https request trusting only the class CA.
 */
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** The class's certificates, in PEM, and the folder holding them (in its tls/). */
export interface ClassTls {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

/**
 * The class CA and 127.0.0.1's certificate and key, made before the file's tests (filled in then) in a new
 * folder under the system's temp folder named `prefix`...; the folder removed after them (its afterAll is
 * registered first, so it runs after the file's own: a service the file started is stopped before).
 */
export function useClassTls(prefix: string): ClassTls {
  const tls: ClassTls = { dir: '', ca: '', cert: '', key: '' };
  beforeAll(() => {
    tls.dir = mkdtempSync(join(tmpdir(), prefix));
    execFileSync('bash', ['docker/lab/tls.sh', join(tls.dir, 'tls'), '127.0.0.1']);
    tls.ca = readFileSync(join(tls.dir, 'tls', 'class-ca.pem'), 'utf8');
    tls.cert = readFileSync(join(tls.dir, 'tls', '127.0.0.1.pem'), 'utf8');
    tls.key = readFileSync(join(tls.dir, 'tls', '127.0.0.1.key'), 'utf8');
  });
  afterAll(() => {
    if (tls.dir !== '') rmSync(tls.dir, { recursive: true, force: true });
  });
  return tls;
}

/** A port of 127.0.0.1 free when asked. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Whatever a plain-HTTP GET gets back within 2 s: the raw bytes, '' when the connection is closed on it. */
export function plainGet(port: number, path = '/login'): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let got = '';
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
    });
    const done = () => resolve(got);
    socket.on('close', done);
    socket.on('error', () => {});
    setTimeout(() => {
      socket.destroy();
      done();
    }, 2000);
  });
}

/**
 * An https GET (or a form POST with its Origin, and any other headers given) trusting only the class CA: its
 * status, body and cookie.
 */
export function httpsCall(
  ca: string,
  port: number,
  path: string,
  post?: { body: string; origin: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string; cookie: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = post
      ? { 'content-type': 'application/x-www-form-urlencoded', origin: post.origin, ...post.headers }
      : {};
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        ca,
        agent: false,
        timeout: 5000,
        method: post ? 'POST' : 'GET',
        headers,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, cookie: String(res.headers['set-cookie'] ?? '') }),
        );
      },
    );
    req.on('error', reject);
    req.end(post?.body);
  });
}
