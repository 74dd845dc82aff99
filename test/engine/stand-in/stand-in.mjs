// Stand-ins for the images that cannot be pulled on a machine without a registry (n8n, Postgres),
// used only by the engine test's compose override. Each keeps the real service's port, healthcheck
// path and lifetime, so that the topology, its networks and its start-up order are exercised as they
// are; none of them stands in for the mock API, which always runs from the real image.
//   node stand-in.mjs postgres | n8n | probe PORT
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';

const [role, arg] = process.argv.slice(2);

function onSigterm(server) {
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function tcp(port, onData) {
  const server = createTcpServer((socket) => {
    socket.on('data', (chunk) => onData(socket, chunk));
    socket.on('error', () => socket.destroy());
  });
  server.listen(port, '0.0.0.0', () => console.log(`${role} stand-in listening on ${port}`));
  onSigterm(server);
}

function n8nHttp() {
  let ownerSetUp = false;
  const server = createHttpServer((req, res) => {
    const json = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && (req.url === '/healthz' || req.url === '/healthz/readiness')) {
      return json(200, { status: 'ok' });
    }
    if (req.method === 'POST' && req.url === '/rest/owner/setup') {
      req.resume();
      if (ownerSetUp) return json(400, { message: 'Instance owner already setup' });
      ownerSetUp = true;
      return json(200, { data: { email: 'stand-in' } });
    }
    // `make up` makes an API key for the lab (login, then the key) and checks it; `make reset` stops the
    // unfinished runs with it. The stand-in has no runs: it answers as n8n does with none.
    if (req.method === 'POST' && req.url === '/rest/login') {
      req.resume();
      res.setHeader('set-cookie', 'n8n-auth=stand-in; Path=/; HttpOnly');
      return json(200, { data: {} });
    }
    if (req.method === 'POST' && req.url === '/rest/api-keys') {
      req.resume();
      if (req.headers.cookie !== 'n8n-auth=stand-in') return json(401, { message: 'Unauthorized' });
      return json(200, { data: { rawApiKey: 'stand-in-api-key' } });
    }
    if (req.url?.startsWith('/api/v1/')) {
      req.resume();
      if (req.headers['x-n8n-api-key'] !== 'stand-in-api-key') return json(401, { message: 'unauthorized' });
      if (req.method === 'POST' && req.url === '/api/v1/executions/stop') return json(200, { stopped: 0 });
      if (req.method === 'GET') return json(200, { data: [], nextCursor: null });
    }
    return json(404, { message: 'not found' });
  });
  server.listen(5678, '0.0.0.0', () => console.log(`${role} stand-in listening on 5678`));
  onSigterm(server);
}

function probe(port) {
  const socket = connect({ host: '127.0.0.1', port: Number(port) });
  socket.setTimeout(2000, () => process.exit(1));
  socket.on('connect', () => process.exit(0));
  socket.on('error', () => process.exit(1));
}

switch (role) {
  case 'postgres':
    tcp(5432, () => {});
    break;
  case 'n8n':
    n8nHttp();
    break;
  case 'probe':
    probe(arg);
    break;
  default:
    console.error(`stand-in: unknown role ${role}`);
    process.exit(2);
}
