/**
 * The board's two browser scripts, served as /board.js and /login.js (its CSP runs same-origin files only).
 * Plain ES2022 in strings, not bundled TypeScript like the console's: each is a few lines, the classroom
 * room may not import the console's bundler, and the image runs no build step; the browser test
 * (test/browser/class-board.browser.ts) runs both.
 */

/** Fetches the board's content every 2 s and swaps it in when it changed: a check shows within ~2 s, no
 * reload. A session that ended sends the tab to the sign-in page; a board that does not answer (it is
 * restarted when a lab's reports volume comes or goes) is retried, and said so. */
export const BOARD_JS = `(() => {
  'use strict';
  const EVERY_MS = 2000;
  const root = document.getElementById('board');
  const live = document.getElementById('live');
  if (root === null || live === null) return;
  let shown = null;
  const say = (state, text) => { live.dataset.state = state; live.textContent = text; };
  async function tick() {
    try {
      const answer = await fetch('/board/content', { cache: 'no-store', credentials: 'same-origin' });
      if (answer.status === 401) { window.location.assign('/login'); return; }
      if (!answer.ok) throw new Error('HTTP ' + answer.status);
      const text = await answer.text();
      if (text !== shown) {
        root.innerHTML = text;
        shown = text;
      }
      say('live', 'live · ' + new Date().toLocaleTimeString());
    } catch (error) {
      say('down', 'the board does not answer; trying again');
    }
    setTimeout(tick, EVERY_MS);
  }
  tick();
})();
`;

/** The sign-in link's script (the console's, app/console/client/login.ts, in plain JavaScript): takes the
 * secret from the URL's fragment, which no browser sends, out of the address bar and the tab's history,
 * then posts it with the page's own form. */
export const LOGIN_JS = `(() => {
  'use strict';
  const hash = window.location.hash;
  const given = new URLSearchParams(hash.replace(/^#/, '')).get('secret');
  if (hash !== '') window.history.replaceState(null, '', window.location.pathname + window.location.search);
  if (given === null || given === '') return;
  const form = document.querySelector('form#login');
  const field = document.querySelector('input#secret');
  if (form === null || field === null) return;
  field.value = given;
  const status = document.getElementById('login-status');
  if (status !== null) status.textContent = 'Signing in with your link…';
  form.submit();
})();
`;
