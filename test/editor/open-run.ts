/**
 * A trainee follows the link a check gave them (`run: <editor>/workflow/<id>/executions/<execution id>[/<node
 * id>]`): in Chromium, signed in to n8n with their login, the address opens n8n 2.41.1's Executions tab on
 * that very run: the address still names the execution, the run's header says `ID#<execution id>`, and its
 * canvas draws the run's nodes, NODE among them when given. A link with a node's id opens that node's panel
 * over the run (its name in the panel, NODE when given).
 *   TRAINEE_EMAIL=... TRAINEE_PASSWORD=... npx tsx test/editor/open-run.ts --url URL [--node NODE] [--shot FILE.png]
 * One line on success (what the page showed); exit 1 with one line on failure, 2 on usage.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { launchChromium } from '../helpers/chromium.js';
import { ACTION_MS, currentStep, doing, say, VIEWPORT } from './editor-kit.js';

const USAGE =
  'usage: TRAINEE_EMAIL=... TRAINEE_PASSWORD=... open-run.ts --url <editor>/workflow/<id>/executions/<execution id>[/<node id>] [--node NODE] [--shot FILE.png]';
const RunUrlSchema = z
  .string()
  .regex(
    /^https?:\/\/[^/]+\/workflow\/[^/]+\/executions\/\d+(\/[^/?#]+)?$/,
    'not an address of one run in the editor',
  );

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, node: { type: 'string' }, shot: { type: 'string' } },
  });
  const url = RunUrlSchema.safeParse(values.url);
  const email = process.env.TRAINEE_EMAIL;
  const password = process.env.TRAINEE_PASSWORD;
  if (!url.success || !email || !password) {
    process.stderr.write(`open-run: ${url.success ? 'no login' : url.error.issues[0]?.message}; ${USAGE}\n`);
    process.exit(2);
  }
  const address = new URL(url.data);
  const [execution = '', nodeId] = address.pathname.split('/executions/')[1]?.split('/') ?? [];
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.setDefaultTimeout(ACTION_MS);
    try {
      // Signed in first, as the trainee is in the editor's own tab (2.41.1's sign-in form).
      // n8n 2.41.1 refuses a sixth sign-in of one login within a minute (429): wait, and sign in again.
      doing(`signing in at ${address.origin}/signin`);
      for (let tries = 1; ; tries += 1) {
        await page.goto(`${address.origin}/signin`);
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const signedIn = await page
          .waitForURL((u) => !/^\/(signin)?$/.test(u.pathname))
          .then(
            () => true,
            () => false,
          );
        if (signedIn) break;
        if (tries === 5) throw new Error('still on the sign-in page after five tries');
        await page.waitForTimeout(15_000);
      }
      doing(`opening ${url.data}`);
      await page.goto(url.data);
      // 2.41.1's run view: its header (data-test-id execution-preview-id) "<date> | ... | ID#<id>", its canvas.
      const header = page.locator('[data-test-id="execution-preview-id"]');
      await header.filter({ hasText: `ID#${execution}` }).waitFor();
      const host = page.locator('[data-test-id="execution-preview-host"]');
      const nodes = host.locator('[data-test-id="canvas-node"]');
      await nodes.first().waitFor();
      const names = await nodes.evaluateAll((all) =>
        all.map(
          (n) =>
            (n as unknown as { getAttribute(a: string): string | null }).getAttribute('data-node-name') ?? '',
        ),
      );
      const at = new URL(page.url()).pathname;
      const opened = `/executions/${execution}${nodeId === undefined ? '' : `/${nodeId}`}`;
      if (!at.endsWith(opened)) throw new Error(`the editor went on to ${at}`);
      if (values.node !== undefined && !names.includes(values.node)) {
        throw new Error(`the run's canvas has no node "${values.node}" (${names.join(', ')})`);
      }
      let panel = '';
      if (nodeId !== undefined) {
        // 2.41.1's node panel (data-test-id ndv) over the run, read-only, with the node's name in its header.
        const ndv = page.locator('[data-test-id="ndv"]');
        await ndv.waitFor();
        const text = (await ndv.innerText()).replace(/\s+/g, ' ');
        if (values.node !== undefined && !text.includes(values.node))
          throw new Error(`the node panel that opened is not ${values.node}'s: ${text.slice(0, 120)}`);
        panel = `; the node panel of ${values.node ?? nodeId} is open`;
      }
      if (values.shot) await page.screenshot({ path: values.shot });
      const shown = (await header.innerText()).replace(/\s+/g, ' ').trim();
      say(
        `opened ${at}: the run's view says "${shown}", its canvas draws ${names.length} nodes (${names.join(', ')})${panel}`,
      );
    } catch (err) {
      if (values.shot) await page.screenshot({ path: values.shot }).catch(() => undefined);
      throw err;
    }
  } finally {
    await browser.close();
  }
}

main().catch((err: unknown) => {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  process.stderr.write(`open-run: ${currentStep()}: ${message}\n`);
  process.exitCode = 1;
});
