#!/usr/bin/env node
/**
 * The mock API's one client (app/mock-api-client/client.ts) as a command, shipped in the image (which has no curl
 * and no shell), so operator commands reach the API through `docker compose exec` instead of a port.
 *
 *   api-request [--envelope] METHOD PATH [JSON]     API_URL, default http://127.0.0.1:$PORT (8081)
 *
 * Prints the JSON body (pretty) and exits 0 on 2xx, 1 otherwise. With --envelope it prints one line
 * {"status": <int>, "body": <json>} and exits 0 whenever the service answered (machine use). Exit 2:
 * bad usage or the service could not be reached.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadConfig } from '../api/config.js';
import { type ApiAnswer, type HttpMethod, mockApiClient } from './client.js';

const USAGE = 'usage: api-request [--envelope] METHOD PATH [JSON]';

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`api-request: ${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  const { envelope, method, path, body } = parsed;
  let base: string;
  try {
    base = baseOf(process.env);
  } catch (err) {
    process.stderr.write(`api-request: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const client = mockApiClient({ kind: 'http', url: base }, { timeoutMs: 10_000 });
  let res: ApiAnswer;
  try {
    res = await client.request(method as HttpMethod, path, body === undefined ? undefined : JSON.parse(body));
  } catch (err) {
    process.stderr.write(
      `api-request: cannot reach ${base}: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 2;
  } finally {
    client.close();
  }
  const json = res.body;
  const okStatus = res.status >= 200 && res.status < 300;
  if (envelope) {
    process.stdout.write(`${JSON.stringify({ status: res.status, body: json })}\n`);
    return 0;
  }
  process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  if (!okStatus) process.stderr.write(`api-request: ${method} ${path} answered ${res.status}\n`);
  return okStatus ? 0 : 1;
}

const ApiUrlSchema = z.url({ protocol: /^https?$/ });

/**
 * Where the mock API is: API_URL, else loopback on the mock API's own PORT, read with the rule and default
 * the server reads it with (app/api/config.ts). A bad value is one line naming the variable.
 */
function baseOf(env: NodeJS.ProcessEnv): string {
  const url = env.API_URL;
  if (url !== undefined && url !== '') {
    if (!ApiUrlSchema.safeParse(url).success)
      throw new Error(`invalid API_URL ${JSON.stringify(url)}: must be an http(s) URL`);
    return url;
  }
  return `http://127.0.0.1:${loadConfig([], { PORT: env.PORT }).port}`;
}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { envelope: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [method, path, body, ...rest] = positionals;
  if (!method || !path || rest.length > 0) throw new Error('METHOD and PATH are required');
  if (!/^[A-Z]+$/.test(method.toUpperCase())) throw new Error(`not a method: ${method}`);
  if (!path.startsWith('/')) throw new Error(`PATH must start with /: ${path}`);
  if (body !== undefined) JSON.parse(body);
  return { envelope: values.envelope ?? false, method: method.toUpperCase(), path, body };
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`api-request: ${String(err)}\n`);
    process.exitCode = 2;
  },
);
