#!/usr/bin/env node
/** The lab console's entry point: reads the environment, starts the poller and the HTTP server. */
import { randomBytes } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import type { LookupFunction, Server } from 'node:net';
import { dirname, join } from 'node:path';
import { serve } from '@hono/node-server';
import { findIdentity } from '../api/schemas/identities.js';
import { mockApiClient } from '../mock-api-client/client.js';
import { n8nRunFeed } from '../n8n/run-feed.js';
import { stopUnfinishedRuns } from '../n8n/stop-runs.js';
import { guardN8nConnections, type OutsideSubnetError, withRefusalShown } from '../n8n/subnet-guard.js';
import { RUNS_FILE } from '../runs/file.js';
import { withKeyFile } from '../tool-kit/key-file.js';
import { RunTutor } from '../tutor/tutor.js';
import { createConsoleApp } from './app.js';
import { CheckRunner } from './check-run.js';
import { type ConsoleConfig, gateLimits, loadConsoleConfig, sessionSettings } from './config.js';
import { gateTarget, refuseClients, startEditorGate } from './editor-gate.js';
import { StateFeed } from './feed.js';
import { Sessions } from './session.js';
import { waitForWalls, wallsWaitFromEnv } from './walls-ready.js';

function main(): void {
  let config: ReturnType<typeof loadConsoleConfig>;
  let env: NodeJS.ProcessEnv;
  let lookup: LookupFunction | undefined;
  let tls: { cert: string; key: string } | undefined;
  try {
    env = withKeyFile(process.env);
    config = loadConsoleConfig(env);
    tls = readTls(config);
    // Before any connection: the gate's, the fetches to n8n (approvals, alerts, Reset, starters) alike.
    lookup = guardN8nConnections(config.n8nUrl, config.n8nAllowedSubnet ?? null, sayRefused);
  } catch (err) {
    process.stderr.write(`console: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const api = mockApiClient(
    config.mockApiSocket
      ? { kind: 'socket', path: config.mockApiSocket }
      : { kind: 'http', url: config.mockApiUrl },
    { timeoutMs: 5000 },
  );
  const apiKey = config.n8nApiKey;
  const fetchImpl = withRefusalShown(fetch);
  const feed = new StateFeed({ api, pollMs: config.pollMs, checkReport: config.checkReport });
  const editorUrl = config.n8nPublicUrl ?? config.n8nUrl;
  // The tutor asks n8n for the trainee's runs with the lab's key; n8n never reaches the console.
  const tutor =
    apiKey === undefined
      ? undefined
      : new RunTutor({
          feed: n8nRunFeed({ n8nUrl: config.n8nUrl, apiKey, editorUrl, fetchImpl }),
          api,
          identityOf: directoryIdentity(),
          runsFile: join(dirname(config.checkReport), RUNS_FILE),
          pollMs: config.pollMs,
          onWriteError: sayOnce,
        });
  const checks = new CheckRunner({
    checker: config.checker,
    api: config.mockApiSocket
      ? { kind: 'socket', path: config.mockApiSocket }
      : { kind: 'http', url: config.mockApiUrl },
    n8nUrl: config.n8nUrl,
    editorUrl,
    reportPath: config.checkReport,
    webhookPath: config.alertWebhookPath,
    env,
    timeoutMs: config.checkTimeoutSeconds * 1000,
  });
  const app = createConsoleApp({
    checks,
    feed,
    api,
    n8nUrl: config.n8nUrl,
    n8nPublicUrl: config.n8nPublicUrl ?? config.n8nUrl,
    allowedHosts: config.allowedHosts,
    ...(apiKey === undefined
      ? {}
      : { stopRuns: () => stopUnfinishedRuns({ n8nUrl: config.n8nUrl, apiKey, fetchImpl }) }),
    fetchImpl,
    token: randomBytes(24).toString('base64url'),
    sessions: config.secret === undefined ? undefined : new Sessions(config.secret, sessionSettings(config)),
    alertWebhookPath: config.alertWebhookPath,
    n8nApiKey: apiKey,
    starters: config.starters,
    workflowApiUrl: config.workflowApiUrl ?? (config.mockApiSocket ? undefined : config.mockApiUrl),
    tutor,
  });
  // The console port's bounds (./config.ts): the time a request may take to arrive, checked every second.
  const bounds = {
    headersTimeout: config.consoleHeadersSeconds * 1000,
    requestTimeout: config.consoleRequestSeconds * 1000,
    connectionsCheckingInterval: 1000,
  };
  const listen = { fetch: app.fetch, hostname: config.host, port: config.port };
  const over =
    tls === undefined
      ? { ...listen, serverOptions: bounds }
      : { ...listen, createServer: createHttpsServer, serverOptions: { ...bounds, ...tls } };
  const server = serve(over, (info) => {
    const host = info.address.includes(':') ? `[${info.address}]` : info.address;
    const proxied = sessionSettings(config).publicOrigin;
    const login =
      (config.secret === undefined ? '' : '; the lab secret is asked for') +
      (proxied === undefined ? '' : `; served to browsers as ${proxied}`);
    process.stdout.write(
      `console listening on ${tls ? 'https' : 'http'}://${host}:${info.port} (mock API: ${api.describe}; test alerts to /webhook/${config.alertWebhookPath}${login})\n`,
    );
    feed.start();
    tutor?.start();
  });
  server.on('error', (err) => {
    process.stderr.write(`console: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(1);
  });
  refuseClients(server as Server, config.refusedClients);
  (server as Server).maxConnections = config.consoleMaxConnections;
  const gate = config.gatePort === undefined ? undefined : startGate(config, config.gatePort, lookup, tls);
  const stop = (signal: string) => {
    feed.stop();
    tutor?.stop();
    api.close();
    gate?.close();
    // A running check is ended first (SIGTERM, SIGKILL after 5 s): no checker outlives its console.
    void checks.stop().finally(() => {
      server.close(() => process.stdout.write(`console stopped (${signal})\n`, () => process.exit(0)));
      if ('closeAllConnections' in server) server.closeAllConnections();
    });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** The editor gate to n8n (./editor-gate.ts); a gate that cannot listen ends the console, as its server. */
function startGate(
  config: ConsoleConfig,
  port: number,
  lookup: LookupFunction | undefined,
  tls: { cert: string; key: string } | undefined,
): Server {
  const { host } = config;
  const target = gateTarget(config.n8nUrl);
  const limits = gateLimits(config);
  const gate = startEditorGate({ host, port, target, refused: config.refusedClients, limits, lookup, tls });
  const subnet = config.n8nAllowedSubnet ? `; n8n only in ${config.n8nAllowedSubnet.cidr}` : '';
  gate.on('listening', () =>
    process.stdout.write(
      `editor gate listening on ${host}:${port}${tls ? ' over TLS' : ''}, passing through to ${target.host}:${target.port} (at most ${limits.maxConnections} connections, ${limits.maxPerClient} a client${subnet})\n`,
    ),
  );
  gate.on('error', (err) => {
    process.stderr.write(`console: the editor gate cannot listen on ${host}:${port}: ${err.message}\n`);
    process.exit(1);
  });
  return gate;
}

/** The certificate and key (CONSOLE_TLS_CERT, CONSOLE_TLS_KEY), when given. */
function readTls(config: ConsoleConfig): { cert: string; key: string } | undefined {
  if (config.tlsCert === undefined || config.tlsKey === undefined) return undefined;
  return { cert: config.tlsCert, key: config.tlsKey };
}

/** The tutor's runs file not written: said once until the reason changes (the panel says it too). */
let lastWriteError = '';
function sayOnce(error: Error): void {
  if (error.message === lastWriteError) return;
  lastWriteError = error.message;
  process.stderr.write(`console: the runs file cannot be written: ${error.message}\n`);
}

/** A refused n8n address, said once a minute at most: a browser retries its push connection every few seconds. */
let lastRefusal = { text: '', at: 0 };
function sayRefused(error: OutsideSubnetError): void {
  const now = Date.now();
  if (error.message === lastRefusal.text && now - lastRefusal.at < 60_000) return;
  lastRefusal = { text: error.message, at: now };
  process.stderr.write(`console: ${error.message}\n`);
}

// Nothing is served before the lab's walls are in place (./walls-ready.ts).
void (async () => {
  let wait: ReturnType<typeof wallsWaitFromEnv>;
  try {
    wait = wallsWaitFromEnv(process.env);
  } catch (err) {
    process.stderr.write(`console: ${(err as Error).message}\n`);
    process.exit(2);
  }
  if (wait.file !== undefined) process.stdout.write(`console: waiting for the lab's walls (${wait.file})\n`);
  if (!(await waitForWalls(wait))) {
    process.stderr.write(
      `console: the lab's walls are not in place after ${wait.waitMs / 1000} s (no fresh ${wait.file}): serving nothing\n`,
    );
    process.exit(1);
  }
  main();
})();

/**
 * The identity system's fixed directory, read from its declaration (the same as the lab's mock API answers
 * with): the tutor never asks the lab's mock API, whose journal it judges runs by.
 */
function directoryIdentity(): (user: string) => Promise<Record<string, unknown> | null> {
  return async (user) => {
    const identity = findIdentity(user);
    return identity === undefined ? null : { ...identity };
  };
}
