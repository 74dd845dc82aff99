/**
 * Every console control docs/trainee-guide.md names is on the console as named. The console's page and
 * its sign-in page are rendered by the console's own app (createConsoleApp) served over real HTTP, and
 * their visible text read (tags, scripts and attribute values dropped); the approval requests' buttons,
 * which the page's script draws, are read from that script's source. The guide's console words are the
 * *italic* and **bold** names in its paragraphs that speak of the console; the few such names that are
 * not the console's (the editor's, emphasis) are listed here by name, so a new one has to be looked at.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleApp } from '../../app/console/app.js';
import { Sessions } from '../../app/console/session.js';
import { standInDeps } from '../console/stand-in-deps.js';
import { type Served, serveOnLoopback } from '../helpers/loopback-http.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** Names emphasised in the guide's console paragraphs that are not console controls. */
const NOT_CONSOLE = new Set([
  'Name it',
  'Open the console',
  'sign-in link',
  'From the console',
  'With curl',
  'resume URL',
  'In the console',
  'On your own machine',
  'Executions',
  'up to the stage before',
  '...',
  'Unpublish',
  'Publish',
  'Waiting',
  'Run',
  'Your workflows stay.',
  'Download',
  'Execute workflow',
]);

/** The text a reader sees in an HTML page: no script or style, no tags, entities decoded, spaces collapsed. */
function visibleText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ');
}

/** The names the guide emphasises in its paragraphs and list items that speak of the console. */
function consoleWords(guide: string): string[] {
  const paragraphs = guide
    .replace(/^```[\s\S]*?^```$/gm, '')
    .split(/\n\s*\n|\n(?=\s*(?:- |\d+\. ))/)
    .filter((p) => /console/i.test(p) && !p.trimStart().startsWith('|'));
  const words = paragraphs.flatMap((p) =>
    [...p.replace(/\s*\n\s*/g, ' ').matchAll(/(?<![*\w])\*\*?([^*`]+?)\*\*?(?![*\w])/g)].map(
      (m) => m[1] ?? '',
    ),
  );
  return [...new Set(words)].filter((w) => !NOT_CONSOLE.has(w));
}

/** The guide's console words the console does not show (as written: case counts). */
function missingWords(words: readonly string[], shown: string): string[] {
  return words.filter((w) => !shown.includes(w));
}

let served: Served;
let shown = '';

beforeAll(async () => {
  const deps = standInDeps({
    n8nPublicUrl: 'http://127.0.0.1:5678',
    token: 'docs-token',
    n8nApiKey: 'docs-key',
  });
  const open = createConsoleApp(deps);
  const signIn = createConsoleApp({ ...deps, sessions: new Sessions('docs-secret', { cookie: 'docs' }) });
  const signInFetch = (req: Request) => {
    const url = new URL(req.url);
    url.pathname = url.pathname.replace(/^\/signin/, '') || '/';
    return signIn.fetch(new Request(url, req));
  };
  served = await serveOnLoopback((req) =>
    new URL(req.url).pathname.startsWith('/signin') ? signInFetch(req) : open.fetch(req),
  );
  const base = served.url;
  const page = await fetch(`${base}/`);
  const login = await fetch(`${base}/signin/login`);
  if (page.status !== 200 || login.status !== 200)
    throw new Error(`page ${page.status}, login ${login.status}`);
  const drawn = [...read('app/console/client/console.ts').matchAll(/'button',\s*\{[\s\S]*?\},\s*'([^']+)'/g)]
    .map((m) => m[1])
    .join(' ');
  shown = `${visibleText(await page.text())} ${visibleText(await login.text())} ${drawn}`;
});

afterAll(() => served.close());

describe('the console controls the trainee guide names', () => {
  it('are on the console’s pages as named', () => {
    const words = consoleWords(read('docs/trainee-guide.md'));
    expect(missingWords(words, shown)).toEqual([]);
    // The reading finds the controls the exercise needs (a reading that found nothing would pass above).
    expect(words).toEqual(
      expect.arrayContaining(['Send a test alert', 'Case connector', 'Set', 'Add a starter']),
    );
  });

  it('control: a name the console does not show is found (the old words of the guide)', () => {
    const old =
      'In the console: *Send test alert*, set *Case mode*, its *API reference*, *Last stage check*.';
    expect(missingWords(consoleWords(old), shown)).toEqual([
      'Send test alert',
      'Case mode',
      'API reference',
      'Last stage check',
    ]);
  });
});
