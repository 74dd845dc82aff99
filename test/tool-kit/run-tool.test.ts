/**
 * A tool's entry (app/tool-kit/run-tool.ts) as a real process: its exit code and its one line, including a
 * run left waiting on an answer that never comes, which Node alone would end with a bare 13.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const runTool = resolve('app/tool-kit/run-tool.ts');
/** One folder for the probe tools of this file, removed after its tests. */
const dir = mkdtempSync(join(tmpdir(), 'run-tool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let probes = 0;

/** Runs a tool whose run is BODY (an async function's statements) and returns its exit code and stderr. */
function toolWith(body: string): Promise<{ code: number | null; stderr: string }> {
  const file = join(dir, `tool-${++probes}.mts`);
  writeFileSync(
    file,
    `import { runTool } from ${JSON.stringify(runTool)};
process.exitCode = await runTool({
  name: 'probe',
  usage: 'usage: probe',
  parse: () => ({}),
  run: async () => { ${body} },
});
`,
  );
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', file], { timeout: 20_000 }, (error, _out, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
    });
  });
}

describe('runTool, as a process', () => {
  it("passes the run's exit code on", async () => {
    expect(await toolWith('return 1;')).toEqual({ code: 1, stderr: '' });
  });

  it('says so in one line, exit 2, when the run is left waiting on nothing', async () => {
    const { code, stderr } = await toolWith('await new Promise(() => {}); return 0;');
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^probe: stopped before it could judge: an answer from n8n or the mock API never came/,
    );
    expect(stderr).toMatch(/\(no request was in flight\)\n$/);
  });

  it('names the request that was never answered, when its connection no longer held the process', async () => {
    // A server that never answers, and a request whose socket keeps nothing alive (as a connection that a
    // busy host's stack has let go would): Node ends the run, the line says which answer never came.
    const { code, stderr } = await toolWith(`
      const { createServer, request } = await import('node:http');
      const server = createServer(() => {}).on('connection', (c) => c.unref());
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      server.unref();
      const req = request({ host: '127.0.0.1', port: server.address().port, path: '/state' });
      req.on('socket', (s) => s.unref());
      req.end();
      await new Promise((r) => req.on('response', r));
      return 0;`);
    expect(code).toBe(2);
    expect(stderr).toMatch(/ \(no answer to GET http:\/\/127\.0\.0\.1:\d+\/state \(0 s\)\)\n$/);
  });

  it('a run that throws: its message, exit 2', async () => {
    expect(await toolWith("throw new Error('n8n said no');")).toEqual({
      code: 2,
      stderr: 'probe: n8n said no\n',
    });
  });
});
