/**
 * The class board's app: the guard, then the page (the class report's page in its board mode), its
 * content for the page's script, and the class as JSON and CSV, each built from the labs' folders at the
 * moment it is asked for, by the class report's own model. No side effects: ./board-main.ts opens the
 * socket.
 */
import { X509Certificate } from 'node:crypto';
import { Hono } from 'hono';
import { refuse } from '../service-kit/browser-guard.js';
import { BOARD_JS } from './board-client.js';
import { type BoardSessions, boardGuard } from './board-guard.js';
import type { ClassInput } from './class-input.js';
import { buildClassReport } from './class-report.js';
import { CLASS_PAGE_CSS } from './page-style.js';
import { renderCsv, renderHistoryCsv } from './render-csv.js';
import { renderBoardContent, renderHtml } from './render-html.js';

export interface BoardDeps {
  /** The class as the labs wrote it (lab-folders.ts). */
  folders: { classInput(now?: Date): Promise<ClassInput> };
  allowedHosts: readonly string[];
  sessions: BoardSessions | undefined;
  /** Served over TLS: its https:// origins (board-guard.ts). */
  tlsOrigins?: readonly string[] | undefined;
  /** The class CA's certificate (PEM): its fingerprint on the page, the file at /class-ca.pem. */
  classCa?: string | undefined;
  now?: () => Date;
  /** Where an unexpected error is told (main: stderr). */
  log?: (line: string) => void;
}

const download = (name: string, type: string) => ({
  'content-type': `${type}; charset=utf-8`,
  'content-disposition': `inline; filename="${name}"`,
});

/** The class CA as the page offers it: its PEM and its SHA-256 fingerprint as browsers show it (AA:BB:…). */
export function classCaOf(pem: string): { pem: string; fingerprint: string } {
  // One final newline, as the file has it (the shell's $(cat ...) that hands it over drops it).
  return { pem: `${pem.trimEnd()}\n`, fingerprint: new X509Certificate(pem).fingerprint256 };
}

export function createBoardApp(deps: BoardDeps): Hono {
  const now = deps.now ?? (() => new Date());
  const report = async () => buildClassReport(await deps.folders.classInput(now()));
  const ca = deps.classCa === undefined ? undefined : classCaOf(deps.classCa);
  const app = new Hono();
  app.use(
    boardGuard({ allowedHosts: deps.allowedHosts, sessions: deps.sessions, tlsOrigins: deps.tlsOrigins }),
  );
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.get('/board.css', (c) => c.body(CLASS_PAGE_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
  app.get('/board.js', (c) => c.body(BOARD_JS, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.get('/', async (c) => c.html(renderHtml(await report(), 'board', ca?.fingerprint)));
  if (ca !== undefined)
    app.get('/class-ca.pem', (c) =>
      c.body(ca.pem, 200, {
        'content-type': 'application/x-pem-file',
        'content-disposition': 'attachment; filename="class-ca.pem"',
      }),
    );
  app.get('/board/content', async (c) => c.html(renderBoardContent(await report())));
  app.get('/class.json', async (c) =>
    c.body(`${JSON.stringify(await report(), null, 2)}\n`, 200, download('class.json', 'application/json')),
  );
  app.get('/class.csv', async (c) =>
    c.body(renderCsv(await report()), 200, download('class.csv', 'text/csv')),
  );
  app.get('/class-history.csv', async (c) =>
    c.body(renderHistoryCsv(await report()), 200, download('class-history.csv', 'text/csv')),
  );
  app.notFound((c) => refuse(c, 404, 'not_found', 'The class board has no such page.'));
  app.onError((error, c) => {
    deps.log?.(`class-board: ${error instanceof Error ? error.message : String(error)}`);
    return c.json(
      { error: { code: 'internal_error', message: 'The class board could not read the class.' } },
      500,
    );
  });
  return app;
}
