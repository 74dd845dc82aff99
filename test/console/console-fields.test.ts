/**
 * What the console serves so a trainee in the browser can work with the mock API it cannot reach: the
 * OpenAPI document (the mock API's own, in process) and a readable field page linked from the header;
 * and the test alerts go to the checker's webhook path (ALERT_WEBHOOK_PATH).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { parseCheckOptions } from '../../app/check/options.js';
import { createConsoleApp } from '../../app/console/app.js';
import { loadConsoleConfig } from '../../app/console/config.js';
import { send, standIn } from '../n8n/stand-in.js';
import { HOST, standInDeps } from './stand-in-deps.js';

let n8nUrl: string;
const hits: string[] = [];
let answerStatus = 200;

beforeAll(async () => {
  const n8n = await standIn((call, res) => {
    hits.push(`${call.method} ${call.url}`);
    send(res, answerStatus, { message: 'Workflow was started' });
  }, 'file');
  n8nUrl = n8n.url;
});

function consoleWith(env: Record<string, string>) {
  const config = loadConsoleConfig({ N8N_URL: n8nUrl, ...env });
  return createConsoleApp(
    standInDeps({
      n8nUrl: config.n8nUrl,
      n8nPublicUrl: config.n8nUrl,
      token: 't',
      alertWebhookPath: config.alertWebhookPath,
      workflowApiUrl: config.workflowApiUrl,
    }),
  );
}

const alert = (app: ReturnType<typeof consoleWith>) =>
  app.request('/api/alert', {
    method: 'POST',
    headers: { host: HOST, 'content-type': 'application/json', 'x-console-token': 't' },
    body: '{"kind":"positive"}',
  });

describe('the test alerts', () => {
  it('go to the path the stage checker uses by default', async () => {
    hits.length = 0;
    const checker = parseCheckOptions(['--stage', 'webhook', '--target', 'n8n', '--api', 'http://a']);
    const res = await alert(consoleWith({}));
    expect(res.status).toBe(200);
    expect(hits).toEqual([`POST /webhook/${checker?.webhookPath}`]);
  });

  it('follow ALERT_WEBHOOK_PATH, read as the checker reads --webhook-path', async () => {
    hits.length = 0;
    const checker = parseCheckOptions([
      '--stage',
      'webhook',
      '--target',
      'n8n',
      '--api',
      'http://a',
      '--webhook-path',
      '/webhook/my-alerts',
    ]);
    const res = await alert(consoleWith({ ALERT_WEBHOOK_PATH: '/webhook/my-alerts' }));
    expect(await res.json()).toMatchObject({ ok: true, url: `${n8nUrl}/webhook/my-alerts` });
    expect(hits).toEqual([`POST /webhook/${checker?.webhookPath}`]);
    expect(() => loadConsoleConfig({ ALERT_WEBHOOK_PATH: 'a b' })).toThrow(/invalid ALERT_WEBHOOK_PATH/);
  });

  it('say that nothing listens, and how to fix it, on a 404', async () => {
    answerStatus = 404;
    try {
      const answer = await alert(consoleWith({ ALERT_WEBHOOK_PATH: 'mine' }));
      const body = z.looseObject({ message: z.string() }).parse(await answer.json());
      expect(body).toMatchObject({ ok: false, status: 404 });
      expect(body.message).toBe(
        'Nothing listens on POST /webhook/mine: publish your workflow, its Webhook node set to POST with the path mine.',
      );
    } finally {
      answerStatus = 200;
    }
  });
});

describe("the mock API's contract in the browser", () => {
  it('/openapi.json is the mock API document, with the address the workflow uses as its server', async () => {
    const app = consoleWith({ MOCK_API_WORKFLOW_URL: 'http://mock-api:8081' });
    const res = await app.request('/openapi.json', { headers: { host: HOST } });
    expect(res.status).toBe(200);
    const served = z.looseObject({}).parse(await res.json());
    const own = z
      .looseObject({})
      .parse(
        await (
          await createApp(defaultDeps()).request('/openapi.json', { headers: { host: 'localhost' } })
        ).json(),
      );
    expect({ ...served, servers: undefined }).toEqual({ ...own, servers: undefined });
    expect(served.servers).toEqual([expect.objectContaining({ url: 'http://mock-api:8081' })]);
  });

  it('/fields lists every operation and its request fields; the console header links to it', async () => {
    const app = consoleWith({ MOCK_API_WORKFLOW_URL: 'http://mock-api:8081' });
    const page = await (await app.request('/', { headers: { host: HOST } })).text();
    expect(page).toMatch(/<a [^>]*href="\/fields"[^>]*>Mock API fields<\/a>/);
    const res = await app.request('/fields', { headers: { host: HOST } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script/);
    const own = z
      .object({ paths: z.record(z.string(), z.record(z.string(), z.unknown())) })
      .parse(
        await (
          await createApp(defaultDeps()).request('/openapi.json', { headers: { host: 'localhost' } })
        ).json(),
      );
    for (const [path, item] of Object.entries(own.paths))
      for (const method of Object.keys(item))
        expect(html).toContain(`>${method.toUpperCase()}</span> <span class="mono">${path}</span>`);
    // POST /blocklist's body: its three fields, required, with their limits.
    const block = html.slice(
      html.indexOf('id="blockAddress"'),
      html.indexOf('</section>', html.indexOf('id="blockAddress"')),
    );
    for (const row of [
      /<td class="mono">ip<\/td><td class="mono">string \(ipv4\) \| string \(ipv6\)<\/td><td>yes<\/td>/,
      /<td class="mono">event_id<\/td><td class="mono">string<\/td><td>yes<\/td><td>1–128 characters<\/td>/,
      /<td class="mono">expires_minutes<\/td><td class="mono">integer<\/td><td>yes<\/td><td>1–60<\/td>/,
    ])
      expect(block).toMatch(row);
    expect(html).toContain('http://mock-api:8081');
  });
});
