/** GET /, /console.js, /console.css: the console page with its token and controls, and its files. */
import { Hono } from 'hono';
import { CLIENT_CSS, clientScript } from '../assets.js';
import { renderPage } from '../page.js';
import type { ConsoleDeps } from './deps.js';

/** GET /, /console.js, /console.css: the page, with its token and the controls this lab has, and its files. */
export function pageRoutes({ token, starters = 'on' }: Pick<ConsoleDeps, 'token' | 'starters'>): Hono {
  return new Hono()
    .get('/', (c) => c.html(renderPage(token, { starters: starters === 'on' })))
    .get('/console.js', async (c) =>
      c.body(await clientScript(), 200, { 'content-type': 'text/javascript; charset=utf-8' }),
    )
    .get('/console.css', (c) => c.body(CLIENT_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }));
}
