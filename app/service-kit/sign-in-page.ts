/** The sign-in page of an app behind a secret (the console, the class board), in each app's words. */
import { html } from 'hono/html';

/**
 * The sign-in page of an app behind a secret (the console, the class board): one field, posted to /login
 * (the only form their CSP lets a page submit), its style at /login.css and its script at /login.js, which
 * signs in with a sign-in link's `#secret=…`. Each app gives its own words.
 */
export interface SignInWords {
  /** The page's heading, and its title before ": sign in". */
  app: string;
  /** The line under the heading: where the secret comes from. */
  intro: string;
  /** The field's label. */
  label: string;
  /** The answer to a wrong secret. */
  wrong: string;
}

export function signInPage(words: SignInWords) {
  return (failed: boolean) => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${words.app}: sign in</title>
<link rel="stylesheet" href="/login.css">
<script src="/login.js" defer></script>
</head>
<body class="login">
<main class="login-card">
  <h1>${words.app}</h1>
  <p>${words.intro}</p>
  <form id="login" method="post" action="/login">
    <label for="secret">${words.label}</label>
    <input id="secret" name="secret" type="password" autocomplete="current-password" required autofocus>
    <button type="submit">Sign in</button>
  </form>
  <p id="login-status" class="login-status" aria-live="polite"></p>
  ${failed ? html`<p class="login-error" role="alert">${words.wrong}</p>` : ''}
</main>
</body>
</html>`;
}

export const SIGN_IN_CSS = `body.login { margin: 0; min-height: 100vh; display: grid; place-items: center;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #16213a; color: #1c2430; }
.login-card { background: #fff; border-radius: 12px; padding: 28px 32px; width: min(400px, 90vw); }
.login-card h1 { font-size: 20px; margin: 0 0 8px; }
.login-card p { color: #65738a; margin: 0 0 16px; }
.login-card label { display: block; font-weight: 600; margin-bottom: 6px; }
.login-card input { box-sizing: border-box; width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #c5cedc; border-radius: 6px; }
.login-card button { margin-top: 14px; width: 100%; font: inherit; padding: 8px; border: 0; border-radius: 6px;
  background: #2457c5; color: #fff; cursor: pointer; }
.login-status:empty { display: none; }
.login-error { color: #b4232c !important; font-weight: 600; margin: 14px 0 0 !important; }
`;
