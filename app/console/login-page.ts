/** The console's sign-in page: the shared sign-in page in the console's words. */
import { signInPage } from '../service-kit/sign-in-page.js';

/**
 * The console's sign-in page (app/service-kit/sign-in-page.ts in the console's words). Its script
 * (/login.js, app/console/client/login.ts) signs in with a sign-in link's `#secret=…`.
 */
export const renderLogin = signInPage({
  app: 'SOAR lab console',
  intro:
    "This lab's console asks for the lab's secret: open the sign-in link your trainer gives you, or type the secret here.",
  label: 'Lab secret',
  wrong: "That is not this lab's secret.",
});
