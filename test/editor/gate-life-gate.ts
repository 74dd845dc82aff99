// The console's editor gate (app/console/editor-gate.ts) in front of a loopback n8n with only its life cap
// set (for test/editor/gate-life.ts). Prints "gate on PORT" once it listens, and a line when the cap has
// closed the editor's push connection (n8n's WebSocket, GET /rest/push).
//   node --import tsx test/editor/gate-life-gate.ts N8N_PORT LIFE_MS [refuse-push-after-cap]
// refuse-push-after-cap: once the cap has closed a push connection, every new push connection is closed at
// its first bytes (the control: a push that cannot reconnect; everything else passes as before).
import { startEditorGate } from '../../app/console/editor-gate.js';

const [n8nPort, lifeMs, mode] = process.argv.slice(2);
const life = Number(lifeMs);
const refusePush = mode === 'refuse-push-after-cap';
const limits = {
  maxConnections: null,
  maxPerClient: null,
  firstByteMs: null,
  idleMs: null,
  endGraceMs: null,
  maxLifeMs: life,
  makeRoomAfterMs: null,
};
const server = startEditorGate({
  host: '127.0.0.1',
  port: 0,
  target: { host: '127.0.0.1', port: Number(n8nPort) },
  refused: null,
  limits,
});
let pushCapped = false;
server.on('connection', (socket) => {
  const since = Date.now();
  let push = false;
  // Only read beside the gate's own piping: the first bytes say whether this is the push connection.
  socket.once('data', (chunk: Buffer) => {
    push = /^GET \/rest\/push/.test(chunk.toString('latin1', 0, 64));
    if (push && pushCapped && refusePush) {
      console.log('a new push connection closed at its first bytes');
      socket.destroy();
    }
  });
  socket.on('close', () => {
    if (!push || pushCapped || Date.now() - since < life - 50) return;
    pushCapped = true;
    console.log(`the cap closed the push connection${refusePush ? ': no push connection from now on' : ''}`);
  });
});
server.on('listening', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') console.log(`gate on ${address.port}`);
});
