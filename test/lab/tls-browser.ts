/**
 * A trainee's browser on a classroom laptop (test/lab/tls.sh): Chromium on a fresh profile, run in the
 * laptop's network namespace with its HOME at --home DIR, so that the only certificate authority added to
 * what it trusts is the one in DIR's NSS database (DIR/.pki/nssdb, made with certutil: how a trainee
 * trusts the class CA on Linux). An empty DIR is Chromium without the class CA.
 *   tls-browser.ts open --home DIR --url URL
 *        opens URL; exit 0 with its status when the page loaded, 1 with Chromium's error (an untrusted
 *        certificate: net::ERR_CERT_AUTHORITY_INVALID)
 *   tls-browser.ts session --home DIR --console URL --n8n URL --kind KIND --out OUT
 *        the console's sign-in link (CONSOLE_SECRET), a test alert and its card once the run has ended; n8n's
 *        sign-in (TRAINEE_EMAIL, TRAINEE_PASSWORD); the card's link into n8n followed, the run's page and
 *        the run read there with the page's own session; every cookie of the browser, with its flags
 * One line on success; exit 1 with one line on failure, 2 on usage.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { ACTION_MS, currentStep, doing, say, VIEWPORT } from '../editor/editor-kit.js';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../helpers/chromium.js';
import { ENDED, KINDS, openConsole, signInToN8n, str, UsageError } from './panel-kit.js';

const USAGE =
  'usage: tls-browser.ts open --home DIR --url URL | session --home DIR --console URL --n8n URL --kind KIND --out OUT';

/** Chromium as every test runs it (test/helpers/chromium.ts), its HOME (and so its NSS database) at `home`. */
function launch(home: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    env: { ...process.env, HOME: home },
  });
}

async function open(home: string, url: string): Promise<void> {
  const browser = await launch(home);
  try {
    const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
    doing(`opening ${url}`);
    const response = await page.goto(url, { timeout: ACTION_MS });
    say(`opened ${url}: HTTP ${response?.status() ?? '?'}`);
  } finally {
    await browser.close();
  }
}

async function session(
  home: string,
  consoleUrl: string,
  n8n: string,
  kind: string,
  out: string,
): Promise<void> {
  const browser = await launch(home);
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    const panel = await openConsole(context, consoleUrl);
    const [sent] = await panel.sendAlerts(kind);
    if (sent === undefined) throw new Error('the test alert had no answer');
    doing(`waiting for the card of ${sent.event_id}`);
    const card = await panel.cardOf(sent.event_id, ENDED);
    const editor = await context.newPage();
    editor.setDefaultTimeout(ACTION_MS);
    await signInToN8n(editor, n8n);
    if (card.link === null) throw new Error(`the card of ${sent.event_id} has no link into n8n`);
    doing(`following the card's link ${card.link.href}`);
    await editor.goto(card.link.href);
    await editor.waitForURL((u) => u.pathname.includes(`/executions/${card.execution}`));
    // The run as n8n's editor reads it, with the page's own session (the Secure cookie, sent over TLS) and
    // the browser id the editor keeps beside it (n8n ties its session to it).
    const run = await editor.evaluate(
      `fetch('/rest/executions/${card.execution}', { cache: 'no-store', headers: { 'browser-id': localStorage.getItem('n8n-browserId') ?? '' } }).then(async (r) => ({ status: r.status, text: (await r.text()).slice(0, 200) }))`,
    );
    const cookies = (await context.cookies()).map(({ name, domain, secure, httpOnly, sameSite }) => ({
      name,
      domain,
      secure,
      httpOnly,
      sameSite,
    }));
    const result = {
      event: sent.event_id,
      card: { execution: card.execution, status: card.status, link: card.link.href },
      landed: editor.url(),
      run,
      cookies,
    };
    writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
    say(
      `${sent.event_id}: card ${card.status}, run ${card.execution} opened in n8n at ${editor.url()}; cookies ${cookies.map((c) => `${c.name}${c.secure ? ' (Secure)' : ''}`).join(', ')}`,
    );
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      home: { type: 'string' },
      url: { type: 'string' },
      console: { type: 'string' },
      n8n: { type: 'string' },
      kind: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const [command] = positionals;
  if (command === 'open') return open(str(values, 'home'), str(values, 'url'));
  if (command !== 'session') throw new UsageError(`unknown command ${command ?? '(none)'}`);
  const kind = str(values, 'kind');
  if (!KINDS.some((k) => k === kind)) throw new UsageError(`--kind is one of ${KINDS.join(', ')}`);
  return session(
    str(values, 'home'),
    str(values, 'console').replace(/\/+$/, ''),
    str(values, 'n8n').replace(/\/+$/, ''),
    kind,
    str(values, 'out'),
  );
}

main().catch((err: unknown) => {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  if (err instanceof UsageError) {
    process.stderr.write(`tls-browser: ${message}; ${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`tls-browser: ${currentStep()}: ${message}\n`);
  process.exitCode = 1;
});
