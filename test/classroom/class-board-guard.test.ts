/**
 * The class board's guard over real HTTP: a Host it does not serve, another site, another origin and any
 * method but GET are refused; with a secret nothing but the sign-in page is served without a session, a
 * wrong secret is answered late, and a session survives the board being started again (board.sh restarts
 * it when a lab's reports volume comes or goes) but not a new secret, and holds only from the address
 * that signed in (its cookie replayed from another loopback address is refused). And its entry, board-main.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOARD_SESSION_COOKIE, BoardSessions } from '../../app/classroom/board-guard.js';
import { type Answer, call } from '../helpers/loopback-http.js';
import { spawnNode, startService } from '../helpers/service-process.js';
import { type ClassOnDisk, classOnDisk, type Served, serveBoard, writeStates } from './board-fixture.js';

const SECRET = '3f0c9a1b2c4d5e6f7a8b';
let on: ClassOnDisk;
let open: Served;
let guarded: Served;

beforeAll(async () => {
  on = classOnDisk(['alice']);
  await writeStates(on, [{ name: 'alice', state: 'running' }]);
  open = await serveBoard(on);
  guarded = await serveBoard(on, { sessions: new BoardSessions(SECRET), allowedHosts: ['10.0.0.5'] });
});
afterAll(async () => {
  await open.close();
  await guarded.close();
  on.remove();
});

const signIn = (served: Served, secret: string) =>
  call(served.url, '/login', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret }).toString(),
  });
const cookieOf = (answer: Answer) =>
  new RegExp(`${BOARD_SESSION_COOKIE}=([^;]+)`).exec(answer.header('set-cookie'))?.[1];

describe('the class board’s guard', () => {
  it('without a secret (loopback): the board, its files and exports; a sign-in link lands on the board', async () => {
    for (const path of ['/', '/board/content', '/board.js', '/board.css', '/class.json', '/class.csv'])
      expect((await call(open.url, path)).status, path).toBe(200);
    const login = await call(open.url, '/login');
    expect([login.status, login.header('location')]).toEqual([303, '/']);
    const page = await call(open.url, '/');
    expect(page.header('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    expect(page.header('x-frame-options')).toBe('DENY');
    expect(page.body).toContain('<script src="/board.js" defer></script>');
  });

  it.each([
    ['another Host', { headers: { host: 'evil.example:8080' } }, 421, 'host_not_allowed'],
    [
      'another site',
      { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' } },
      403,
      'cross_site',
    ],
    ['another origin', { headers: { origin: 'http://evil.example' } }, 403, 'origin_not_allowed'],
    ['a POST', { method: 'POST', body: '{}' }, 405, 'method_not_allowed'],
    ['a DELETE', { method: 'DELETE' }, 405, 'method_not_allowed'],
  ] as const)('refuses %s', async (_name, init, status, code) => {
    const answer = await call(open.url, '/class.json', init);
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body).error.code).toBe(code);
  });

  it('a link from another site may open the page (a top-level navigation)', async () => {
    const answer = await call(open.url, '/', {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' },
    });
    expect(answer.status).toBe(200);
  });

  it('with a secret: the sign-in page only; a wrong secret late; the right one opens a session', async () => {
    const page = await call(guarded.url, '/', { headers: { accept: 'text/html' } });
    expect([page.status, page.header('location')]).toEqual([303, '/login']);
    expect((await call(guarded.url, '/class.json')).status).toBe(401);
    expect((await call(guarded.url, '/board/content')).status).toBe(401);
    expect((await call(guarded.url, '/login.js')).status).toBe(200);
    expect((await call(guarded.url, '/login')).body).toContain(
      '<form id="login" method="post" action="/login">',
    );
    expect(
      (await call(guarded.url, '/', { headers: { host: '10.0.0.5:8080', accept: 'text/html' } })).status,
    ).toBe(303);

    const began = performance.now();
    const wrong = await signIn(guarded, 'not-the-secret');
    expect(wrong.status).toBe(401);
    expect(performance.now() - began).toBeGreaterThanOrEqual(390);
    expect(cookieOf(wrong)).toBeUndefined();

    const right = await signIn(guarded, SECRET);
    expect([right.status, right.header('location')]).toEqual([303, '/']);
    expect(right.header('set-cookie')).toMatch(/HttpOnly/);
    expect(right.header('set-cookie')).toMatch(/SameSite=Strict/);
    const cookie = `${BOARD_SESSION_COOKIE}=${cookieOf(right)}`;
    expect((await call(guarded.url, '/class.json', { headers: { cookie } })).status).toBe(200);
    expect((await call(guarded.url, '/', { headers: { cookie } })).status).toBe(200);
  });

  it('has a cookie name of its own, and a session replayed from another address is no session', async () => {
    expect(BOARD_SESSION_COOKIE).toBe('soar_class_board');
    const right = await signIn(guarded, SECRET);
    const cookie = `${BOARD_SESSION_COOKIE}=${cookieOf(right)}`;
    expect((await call(guarded.url, '/class.json', { headers: { cookie }, from: '127.0.0.1' })).status).toBe(
      200,
    );
    const replayed = await call(guarded.url, '/class.json', { headers: { cookie }, from: '127.0.0.2' });
    expect([replayed.status, JSON.parse(replayed.body).error.code]).toEqual([401, 'login_required']);
    const page = await call(guarded.url, '/', {
      headers: { cookie, accept: 'text/html' },
      from: '127.0.0.2',
    });
    expect([page.status, page.header('location')]).toEqual([303, '/login']);
    // The browser that signed in keeps its session.
    expect((await call(guarded.url, '/class.json', { headers: { cookie } })).status).toBe(200);
  });

  it('a session outlives a restart of the board, not a new secret, a changed cookie or its day', () => {
    let now = Date.parse('2026-11-24T08:00:00Z');
    const at = '192.0.2.7';
    const cookie = new BoardSessions(SECRET, () => now).open(at);
    expect(new BoardSessions(SECRET, () => now).valid(cookie, at)).toBe(true);
    expect(new BoardSessions(SECRET, () => now).valid(cookie, '192.0.2.8')).toBe(false);
    expect(new BoardSessions('another-secret-123', () => now).valid(cookie, at)).toBe(false);
    const [expires, mac = ''] = cookie.split('.');
    const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
    expect(new BoardSessions(SECRET, () => now).valid(`${expires}.${flipped}`, at)).toBe(false);
    expect(new BoardSessions(SECRET, () => now).valid(`${Number(expires) + 9999}.${mac}`, at)).toBe(false);
    expect(new BoardSessions(SECRET, () => now).valid(undefined, at)).toBe(false);
    now += 12 * 3600 * 1000 + 1000;
    expect(new BoardSessions(SECRET, () => now).valid(cookie, at)).toBe(false);
  });
});

describe('board-main', () => {
  it('serves the board from the environment and stops on SIGTERM', async () => {
    const board = await startService(
      [],
      { BOARD_PORT: '0', BOARD_LABS: on.labs, BOARD_STATES: on.states },
      (args, env) => spawnNode('app/classroom/board-main.ts', args, env),
    );
    const url = /class board listening on (http:\/\/\S+)/.exec(board.stdout())?.[1];
    const answer = await fetch(`${url}/class.json`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(await answer.text()).labs[0].name).toBe('alice');
    board.child.kill('SIGTERM');
    expect((await board.exited).code).toBe(0);
    expect(board.stdout()).toContain('class board stopped (SIGTERM)');
  });

  it.each([
    [{ BOARD_PORT: 'eighty' }, /^class-board: BOARD_PORT: /],
    [{ BOARD_LABS: 'labs' }, /^class-board: BOARD_LABS: must be an absolute path/],
    [{ CLASS_BOARD_SECRET: 'short' }, /^class-board: CLASS_BOARD_SECRET: must be at least 12 characters/],
  ])('refuses %j in one line, exit 2', async (env, message) => {
    const proc = spawnNode('app/classroom/board-main.ts', [], env);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toMatch(message);
    expect(proc.stderr().trim().split('\n')).toHaveLength(1);
  });
});
