/** Shared by the contract tests: the real service on a free loopback port, its document, the tools' CLIs. */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { createApp, defaultDeps } from '../../app/api/app.js';
import { loadConfig } from '../../app/api/config.js';
import type { AppEnv } from '../../app/api/http/env.js';
import { type RunningServer, startServer } from '../../app/api/server.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

export type OpenApiDocument = {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
} & Record<string, unknown>;

export interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, { headers?: Record<string, { required?: boolean }> } & Record<string, unknown>>;
}

/** The production app through the production startServer, on a free loopback port. */
export async function startService(app: Hono<AppEnv> = createApp(defaultDeps())): Promise<RunningServer> {
  return startServer(app, loadConfig([], { HOST: '127.0.0.1', PORT: '0' }));
}

export async function fetchDocument(url: string): Promise<OpenApiDocument> {
  const res = await fetch(`${url}/openapi.json`);
  return (await res.json()) as OpenApiDocument;
}

/** A private temporary folder, removed by the returned function. */
export async function tempDir(): Promise<{
  dir: string;
  write: (name: string, value: unknown) => Promise<string>;
  remove: () => Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'soar-contract-'));
  return {
    dir,
    write: async (name, value) => {
      const path = join(dir, name);
      await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
      return path;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Runs a command to its end (killed after timeoutMs), collecting its output. */
export function run(
  command: string,
  args: string[],
  timeoutMs = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A deep copy to mutate into a broken document. */
export const clone = <T>(value: T): T => structuredClone(value);
