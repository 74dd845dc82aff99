#!/usr/bin/env node
/** The lab console's entry point: reads the environment, starts the poller and the HTTP server. */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:net';
import { serve } from '@hono/node-server';
import { mockApiClient } from '../mock-api-client/client.js';
import { stopUnfinishedRuns } from '../n8n/stop-runs.js';
import { withKeyFile } from '../tool-kit/key-file.js';
import { createConsoleApp } from './app.js';
import { CheckRunner } from './check-run.js';
import { type ConsoleConfig, loadConsoleConfig, sessionSettings } from './config.js';
import { gateTarget, refuseClients, startEditorGate } from './editor-gate.js';
import { StateFeed } from './feed.js';
import { Sessions } from './session.js';

function main(): void {
  let config: ReturnType<typeof loadConsoleConfig>;
  let env: NodeJS.ProcessEnv;
  try {
    env = withKeyFile(process.env);
    config = loadConsoleConfig(env);
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
  const feed = new StateFeed({ api, pollMs: config.pollMs, checkReport: config.checkReport });
  const checks = new CheckRunner({
    checker: config.checker,
    api: config.mockApiSocket
      ? { kind: 'socket', path: config.mockApiSocket }
      : { kind: 'http', url: config.mockApiUrl },
    n8nUrl: config.n8nUrl,
    editorUrl: config.n8nPublicUrl ?? config.n8nUrl,
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
      : { stopRuns: () => stopUnfinishedRuns({ n8nUrl: config.n8nUrl, apiKey }) }),
    token: randomBytes(24).toString('base64url'),
    sessions: config.secret === undefined ? undefined : new Sessions(config.secret, sessionSettings(config)),
    alertWebhookPath: config.alertWebhookPath,
    n8nApiKey: apiKey,
    starters: config.starters,
    workflowApiUrl: config.workflowApiUrl ?? (config.mockApiSocket ? undefined : config.mockApiUrl),
  });
  const server = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, (info) => {
    const host = info.address.includes(':') ? `[${info.address}]` : info.address;
    const proxied = sessionSettings(config).publicOrigin;
    const login =
      (config.secret === undefined ? '' : '; the lab secret is asked for') +
      (proxied === undefined ? '' : `; served to browsers as ${proxied}`);
    process.stdout.write(
      `console listening on http://${host}:${info.port} (mock API: ${api.describe}; test alerts to /webhook/${config.alertWebhookPath}${login})\n`,
    );
    feed.start();
  });
  server.on('error', (err) => {
    process.stderr.write(`console: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
    process.exit(1);
  });
  refuseClients(server as Server, config.refusedClients);
  const gate = config.gatePort === undefined ? undefined : startGate(config, config.gatePort);
  const stop = (signal: string) => {
    feed.stop();
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
function startGate(config: ConsoleConfig, port: number): Server {
  const { host } = config;
  const target = gateTarget(config.n8nUrl);
  const gate = startEditorGate({ host, port, target, refused: config.refusedClients });
  gate.on('listening', () =>
    process.stdout.write(
      `editor gate listening on ${host}:${port}, passing through to ${target.host}:${target.port}\n`,
    ),
  );
  gate.on('error', (err) => {
    process.stderr.write(`console: the editor gate cannot listen on ${host}:${port}: ${err.message}\n`);
    process.exit(1);
  });
  return gate;
}

main();
