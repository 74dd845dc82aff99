/**
 * The login page's script, bundled by app/console/client-build.ts into /login.js: it signs in with a
 * sign-in link, `/login#secret=<secret>`. A browser never sends a URL's fragment to a server, so the
 * secret reaches no server or proxy log; this script takes it out of the address bar and the tab's
 * history before anything else, then posts it with the page's own form (as a trainee typing it would).
 * Without a fragment the page stays the plain form.
 */

/** The secret a sign-in link carries, or null; `#secret=` with nothing after it is no secret. */
function linkSecret(hash: string): string | null {
  const secret = new URLSearchParams(hash.replace(/^#/, '')).get('secret');
  return secret === null || secret === '' ? null : secret;
}

function signInWithLink(): void {
  const { hash, pathname, search } = window.location;
  if (hash === '') return;
  const secret = linkSecret(hash);
  // Replaces the current history entry: the URL with the fragment is in neither the address bar nor
  // the tab's history any more (Back does not bring it back).
  window.history.replaceState(null, '', pathname + search);
  const form = document.querySelector<HTMLFormElement>('form#login');
  const field = document.querySelector<HTMLInputElement>('input#secret');
  if (secret === null || form === null || field === null) return;
  field.value = secret;
  const status = document.getElementById('login-status');
  if (status !== null) status.textContent = 'Signing in with your link…';
  form.submit();
}

signInWithLink();
// A link opened in a tab that shows the login page already changes only the fragment: no new page.
window.addEventListener('hashchange', signInWithLink);
