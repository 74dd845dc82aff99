#!/usr/bin/env node
/**
 * The class board's entry (`node dist/app/classroom/board-main.js`, in a container of the lab's image that
 * docker/lab/board.sh starts): reads the environment (board-config.ts), serves the board, stops on SIGTERM
 * or SIGINT. Exit 2 with one line on a bad setting, 1 when it cannot listen.
 */
import { createServer as createHttpsServer } from 'node:https';
import { serve } from '@hono/node-server';
import { LOOPBACK_NAMES } from '../service-kit/browser-guard.js';
import { createBoardApp } from './board-app.js';
import { loadBoardConfig } from './board-config.js';
import { BoardSessions } from './board-guard.js';
import { LabFolders } from './lab-folders.js';

function main(): void {
  let config: ReturnType<typeof loadBoardConfig>;
  try {
    config = loadBoardConfig(process.env);
  } catch (error) {
    process.stderr.write(`class-board: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const tls =
    config.tlsCert === undefined || config.tlsKey === undefined
      ? undefined
      : { cert: config.tlsCert, key: config.tlsKey };
  const publicPort = config.publicPort ?? config.port;
  const app = createBoardApp({
    folders: new LabFolders({ labs: config.labs, saved: config.saved, states: config.states }),
    allowedHosts: config.allowedHosts,
    sessions: config.secret === undefined ? undefined : new BoardSessions(config.secret),
    tlsOrigins:
      tls && [...LOOPBACK_NAMES, ...config.allowedHosts].map((name) => `https://${name}:${publicPort}`),
    classCa: config.caCert,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const listen = { fetch: app.fetch, hostname: config.host, port: config.port };
  const over = tls ? { ...listen, createServer: createHttpsServer, serverOptions: tls } : listen;
  const server = serve(over, (info) => {
    const host = info.address.includes(':') ? `[${info.address}]` : info.address;
    const secret = config.secret === undefined ? '' : '; the board secret is asked for';
    process.stdout.write(
      `class board listening on ${tls ? 'https' : 'http'}://${host}:${info.port} (labs in ${config.labs}${secret})\n`,
    );
  });
  server.on('error', (error) => {
    process.stderr.write(`class-board: cannot listen on ${config.host}:${config.port}: ${error.message}\n`);
    process.exit(1);
  });
  const stop = (signal: string) => {
    server.close(() => process.stdout.write(`class board stopped (${signal})\n`, () => process.exit(0)));
    if ('closeAllConnections' in server) server.closeAllConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main();
