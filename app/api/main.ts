#!/usr/bin/env node
/** Entry point: the only file that touches process.env, argv, signals and the socket. */
import { createApp, defaultDeps } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogWriter } from './http/log-writer.js';
import { startServer } from './server.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`mock-api: ${err.message}\n`);
    process.exit(2);
  }

  const logs = createLogWriter((chunk) => process.stdout.write(chunk));
  const logError = (err: unknown) =>
    process.stderr.write(`${JSON.stringify({ level: 'error', error: String(err) })}\n`);
  const deps = defaultDeps({
    log: logs.log,
    logError,
    access: { allowedClients: config.allowedClients, allowedHosts: config.allowedHosts },
  });
  const app = createApp(deps);

  let running: Awaited<ReturnType<typeof startServer>>;
  let socket: Awaited<ReturnType<typeof startServer>> | undefined;
  let where = `${config.host}:${config.port}`;
  try {
    running = await startServer(app, config, logError);
    where = config.socketPath ?? where;
    if (config.socketPath) {
      // The same store behind the socket. Its peers have no address: the socket file's mode and who may
      // open it decide, so ALLOWED_CLIENTS does not apply there (Host and Origin checks do).
      const socketApp = createApp({ ...deps, access: { ...deps.access, allowedClients: null } });
      socket = await startServer(socketApp, config, logError, config.socketPath);
    }
  } catch (err) {
    process.stderr.write(`mock-api: cannot listen on ${where}: ${(err as Error).message}\n`);
    process.exit(1);
  }
  process.stdout.write(`listening on ${running.url}\n`);
  if (socket) process.stdout.write(`listening on ${socket.url}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await Promise.all([running.close(config.shutdownGraceMs), socket?.close(config.shutdownGraceMs)]);
    logs.flush();
    process.stdout.write(`stopped (${signal})\n`, () => process.exit(0));
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
