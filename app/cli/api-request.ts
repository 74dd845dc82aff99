#!/usr/bin/env node
/**
 * A tiny client for the mock API, shipped in the image (which has no curl and no shell), so operator
 * commands reach the API through `docker compose exec` instead of a published port.
 *
 *   api-request [--envelope] METHOD PATH [JSON]     API_URL, default http://127.0.0.1:$PORT (8081)
 *
 * Prints the JSON body (pretty) and exits 0 on 2xx, 1 otherwise. With --envelope it prints one line
 * {"status": <int>, "body": <json>} and exits 0 whenever the service answered (machine use). Exit 2:
 * bad usage or the service could not be reached.
 */
import { parseArgs } from 'node:util';

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
  const base = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8081'}`;
  let res: Response;
  try {
    res = await fetch(new URL(path, base), {
      method,
      ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
    process.stderr.write(`api-request: cannot reach ${base}: ${cause}\n`);
    return 2;
  }
  const text = await res.text();
  let json: unknown = text;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    // Not JSON (never from this service, but keep what came back).
  }
  if (envelope) {
    process.stdout.write(`${JSON.stringify({ status: res.status, body: json })}\n`);
    return 0;
  }
  process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  if (!res.ok) process.stderr.write(`api-request: ${method} ${path} answered ${res.status}\n`);
  return res.ok ? 0 : 1;
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
