import { html } from 'hono/html';

/**
 * The login form: one field, posted to /login (the only form the console's CSP lets a page submit). Its
 * script (/login.js, app/console/client/login.ts) signs in with a sign-in link's `#secret=…`.
 */
export function renderLogin(failed: boolean) {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SOAR lab console: sign in</title>
<link rel="stylesheet" href="/login.css">
<script src="/login.js" defer></script>
</head>
<body class="login">
<main class="login-card">
  <h1>SOAR lab console</h1>
  <p>This lab's console asks for the lab's secret: open the sign-in link your trainer gives you, or type the secret here.</p>
  <form id="login" method="post" action="/login">
    <label for="secret">Lab secret</label>
    <input id="secret" name="secret" type="password" autocomplete="current-password" required autofocus>
    <button type="submit">Sign in</button>
  </form>
  <p id="login-status" class="login-status" aria-live="polite"></p>
  ${failed ? html`<p class="login-error" role="alert">That is not this lab's secret.</p>` : ''}
</main>
</body>
</html>`;
}

export const LOGIN_CSS = `body.login { margin: 0; min-height: 100vh; display: grid; place-items: center;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #16213a; color: #1c2430; }
.login-card { background: #fff; border-radius: 12px; padding: 28px 32px; width: min(380px, 90vw); }
.login-card h1 { font-size: 20px; margin: 0 0 8px; }
.login-card p { color: #65738a; margin: 0 0 16px; }
.login-card label { display: block; font-weight: 600; margin-bottom: 6px; }
.login-card input { box-sizing: border-box; width: 100%; font: inherit; padding: 8px 10px; border: 1px solid #c5cedc; border-radius: 6px; }
.login-card button { margin-top: 14px; width: 100%; font: inherit; padding: 8px; border: 0; border-radius: 6px;
  background: #2457c5; color: #fff; cursor: pointer; }
.login-status:empty { display: none; }
.login-error { color: #b4232c !important; font-weight: 600; margin: 14px 0 0 !important; }
`;
