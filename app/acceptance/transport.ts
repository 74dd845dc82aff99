/**
 * How the runner reaches the mock API: over HTTP, or through a command (the compose lab keeps the mock
 * API on an internal network, so the host reaches it with `docker compose exec ... api-request.js`).
 */
import { spawn } from 'node:child_process';
import { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface ApiResponse {
  status: number;
  /** The parsed JSON answer; the raw text when it is not JSON; null when empty. */
  body: unknown;
}

export interface ApiTransport {
  /** For messages and the report, e.g. `http://127.0.0.1:8081`. */
  readonly describe: string;
  request(method: HttpMethod, path: string, body?: unknown): Promise<ApiResponse>;
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Plain fetch. A string body makes Node set Content-Length; Node's fetch sends no Origin header, and none
 * is added here, because the mock API refuses requests that carry one.
 */
export class HttpTransport implements ApiTransport {
  readonly describe: string;
  readonly #base: string;
  readonly #signal: AbortSignal | undefined;

  constructor(baseUrl: string, signal?: AbortSignal) {
    this.#base = baseUrl.replace(/\/+$/, '');
    this.describe = this.#base;
    this.#signal = signal;
  }

  async request(method: HttpMethod, path: string, body?: unknown): Promise<ApiResponse> {
    const init: RequestInit = { method, signal: this.#signal ?? null };
    if (body !== undefined) {
      init.headers = { 'content-type': 'application/json' };
      init.body = JSON.stringify(body);
    }
    const response = await fetch(`${this.#base}${path}`, init);
    return { status: response.status, body: parseBody(await response.text()) };
  }
}

const EnvelopeSchema = z.object({ status: z.int(), body: z.unknown() });

/**
 * Runs `<prefix> METHOD PATH [JSON]` and reads the one-line envelope `{"status": ..., "body": ...}` it
 * prints. The arguments go through `sh -c '<prefix> "$@"'` so the prefix may be a shell phrase while the
 * JSON body is passed verbatim, never re-parsed by the shell.
 */
export class ExecTransport implements ApiTransport {
  readonly describe: string;
  readonly #prefix: string;
  readonly #timeoutMs: number;

  constructor(prefix: string, timeoutMs = 30_000) {
    this.#prefix = prefix;
    this.#timeoutMs = timeoutMs;
    this.describe = `exec: ${prefix}`;
  }

  request(method: HttpMethod, path: string, body?: unknown): Promise<ApiResponse> {
    const args = [method, path];
    if (body !== undefined) args.push(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const child = spawn('sh', ['-c', `${this.#prefix} "$@"`, 'api-exec', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), this.#timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        // The envelope decides, not the exit code: a 4xx answer is a result, not a transport failure.
        const lastLine = stdout.trim().split('\n').at(-1) ?? '';
        const envelope = EnvelopeSchema.safeParse(parseBody(lastLine));
        if (envelope.success) {
          resolve({ status: envelope.data.status, body: envelope.data.body ?? null });
          return;
        }
        const why = signal ? `killed by ${signal}` : `exit code ${code}`;
        reject(
          new Error(
            `api-exec ${method} ${path}: no {"status","body"} line (${why}): ${stderr.trim() || stdout.trim()}`,
          ),
        );
      });
    });
  }
}
