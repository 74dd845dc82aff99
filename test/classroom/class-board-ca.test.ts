/**
 * The class board offers the class CA (BOARD_CA_CERT, docker/lab/board.sh gives it over TLS): its page shows
 * the CA's SHA-256 fingerprint, the same as openssl's (docker/lab/tls.sh prints it), with a link to the
 * file; /class-ca.pem serves that file without a session (a trainee fetches it before trusting the board),
 * while the page itself still asks for the board secret. Its control: the same board without the CA shows
 * no fingerprint and has no /class-ca.pem. A value that is no certificate is refused, naming the variable.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBoardConfig } from '../../app/classroom/board-config.js';
import { BOARD_SESSION_COOKIE, BoardSessions } from '../../app/classroom/board-guard.js';
import { call } from '../helpers/loopback-http.js';
import { type ClassOnDisk, classOnDisk, type Served, serveBoard, writeStates } from './board-fixture.js';

const SECRET = 'a board secret for the CA test';
let dir: string;
let ca: string;
let fingerprint: string;
let on: ClassOnDisk;
let withCa: Served;
let without: Served;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'board-ca-'));
  // The lab's own script makes the class CA and prints its fingerprint (openssl's, as browsers show it).
  fingerprint = execFileSync('bash', ['docker/lab/tls.sh', join(dir, 'tls'), '127.0.0.1'], {
    encoding: 'utf8',
  }).trim();
  ca = readFileSync(join(dir, 'tls', 'class-ca.pem'), 'utf8');
  on = classOnDisk(['alice']);
  await writeStates(on, [{ name: 'alice', state: 'running' }]);
  // As docker/lab/board.sh hands it over (the shell's $(cat ...)): without the file's final newline.
  withCa = await serveBoard(on, { sessions: new BoardSessions(SECRET), classCa: ca.trimEnd() });
  without = await serveBoard(on, { sessions: new BoardSessions(SECRET) });
});
afterAll(async () => {
  await withCa?.close();
  await without?.close();
  on?.remove();
  rmSync(dir, { recursive: true, force: true });
});

async function signedIn(served: Served): Promise<string> {
  const answer = await call(served.url, '/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret: SECRET }).toString(),
  });
  const session = new RegExp(`${BOARD_SESSION_COOKIE}=([^;]+)`).exec(answer.header('set-cookie'))?.[1];
  expect(session).toBeDefined();
  return `${BOARD_SESSION_COOKIE}=${session}`;
}

describe('the class board and the class CA', () => {
  it('shows the CA’s SHA-256 fingerprint, openssl’s, and links its file', async () => {
    expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const page = await call(withCa.url, '/', { headers: { cookie: await signedIn(withCa) } });
    expect(page.status).toBe(200);
    expect(page.body).toContain(`SHA-256 <code>${fingerprint}</code>`);
    expect(page.body).toContain('<a href="/class-ca.pem" download>class-ca.pem</a>');
  });

  it('serves the CA’s file without a session, and nothing else without one', async () => {
    const file = await call(withCa.url, '/class-ca.pem');
    expect(file.status).toBe(200);
    expect(file.body).toBe(ca);
    expect(file.header('content-type')).toBe('application/x-pem-file');
    expect(file.header('content-disposition')).toBe('attachment; filename="class-ca.pem"');
    const page = await call(withCa.url, '/');
    expect(page.status).not.toBe(200);
    expect(page.body).not.toContain(fingerprint);
  });

  it('control: without BOARD_CA_CERT no fingerprint and no file', async () => {
    const page = await call(without.url, '/', { headers: { cookie: await signedIn(without) } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Class board');
    expect(page.body).not.toContain('class-ca');
    expect((await call(without.url, '/class-ca.pem')).status).toBe(404);
  });

  it('refuses a BOARD_CA_CERT that is no certificate, naming it', () => {
    expect(() => loadBoardConfig({ BOARD_CA_CERT: 'not a certificate' })).toThrow(/^BOARD_CA_CERT: /);
    expect(loadBoardConfig({ BOARD_CA_CERT: ca }).caCert).toBe(ca);
  });
});
