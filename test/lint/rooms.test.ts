/**
 * The rooms of app/ and which may import which, written once: a room imports only the rooms below it here,
 * so the stage checker and the acceptance matrix are siblings over the driver and the judging they share,
 * the checker and the tutor siblings over the judges of the stages they share,
 * the console imports no tool and builds no mock API (it imports the mock API's schemas and fixed directory,
 * api/schemas, and serves a generated copy of its OpenAPI document), the mock API imports no tool, and
 * app/n8n is the only client of n8n's API. No import cycle, between files or between rooms. Also: no source
 * file in app/ or bench/ over 400 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Top to bottom: each room's list names only rooms further down. One sentence a room: what it holds. */
const ALLOWED: Record<string, readonly string[]> = {
  /** The lab console: the trainee's page, its API (state, approvals, checks, starters) and its sign-in. */
  console: [
    'service-kit',
    'tool-kit',
    'driver',
    'judging',
    'check-report',
    'mock-api-client',
    'n8n',
    'api/schemas',
    'workflow',
    'lab-settings',
    'stages',
    'tutor',
    'runs',
  ],
  /**
   * The tutor: each run a trainee makes, read from n8n's execution data and the mock API's journal, judged
   * by the judges the checker uses, explained as it ends; its file for the class tools.
   */
  tutor: ['judges', 'check-report', 'runs', 'judging', 'mock-api-client', 'stages', 'workflow', 'tool-kit'],
  /** The acceptance matrix: its cases, their verdicts over the driver's evidence, its report. */
  acceptance: ['tool-kit', 'driver', 'judging', 'mock-api-client', 'targets', 'workflow'],
  /**
   * The stage checker: the stages it checks run through the driver on a target, judged by the judges below,
   * the report and the history written; the broken variants of the workflow.
   */
  check: [
    'tool-kit',
    'driver',
    'judges',
    'check-report',
    'mock-api-client',
    'n8n',
    'targets',
    'workflow',
    'stages',
    'runs',
  ],
  /**
   * The judges of the stages, which the checker and the tutor share: the scenarios (a stimulus and the
   * expectations that judge what it left), one file of expectations per stage, the evidence they read, the
   * mapping of the alert's fields, and the run pointer that names the node to blame.
   */
  judges: ['driver', 'judging', 'check-report', 'mock-api-client', 'n8n', 'workflow', 'stages', 'runs'],
  /** The trainer's class tools: the class report and the live class board. */
  classroom: ['service-kit', 'runs', 'check-report', 'lab-settings', 'stages'],
  /** The one client of n8n's API, and the CLI the lab's tools container runs (setup, solution, restore). */
  n8n: ['tool-kit', 'driver', 'judging', 'runs', 'workflow', 'lab-settings', 'stages'],
  /** What the matrix and the checker run against: the reference on the simulator, n8n, their flags. */
  targets: ['tool-kit', 'driver', 'runs', 'mock-api-client', 'simulator', 'workflow', 'lab-settings'],
  /**
   * The workflow run without n8n: the subset of n8n 2.x the guide's workflow uses (its nodes, expressions and
   * Code in a sandbox), behind n8n's trigger and resume URLs, its runs read as n8n's executions.
   */
  simulator: ['runs', 'workflow'],
  /**
   * The one scenario driver: it posts a stimulus to a workflow target, answers approvals at the resume URL,
   * watches the run and waits for a quiet journal; with its timing and how a webhook path is typed.
   */
  driver: ['judging', 'runs', 'mock-api-client'],
  /**
   * What the matrix's verdicts and the checker's expectations both ask of the destination state (the judging
   * kernel), what an approval request is, and reading a JSON value by its path.
   */
  judging: ['mock-api-client'],
  /**
   * One model of a run, which the driver, the simulator, n8n's client, the checker, the tutor, the console
   * and the class tools share: a run as a workflow target shows it (its nodes, its status, when it was busy,
   * the list of runs and one run's data), and the tutor's file of the runs it explained (reports/runs.json).
   */
  runs: ['check-report', 'lab-settings'],
  /** The stage checker's result files, which the console and the class tools read: the report, the history. */
  'check-report': ['lab-settings', 'stages'],
  /**
   * The one client of the mock API (URL, Unix socket or command), loose readers of its answers, a mock API
   * served in-process, and the in-image command `api-request`.
   */
  'mock-api-client': ['api'],
  /** What a lab tool's entry shares: its run and exit code, where its lines go, n8n's key read from a file. */
  'tool-kit': [],
  /**
   * The mock API: entry, app, settings, server, OpenAPI document (and the console's copy of it, generated), over
   * its four parts below.
   */
  api: ['service-kit', 'api/http', 'api/routes', 'api/store', 'api/schemas'],
  /** The mock API's routes, one module a resource. */
  'api/routes': ['api/http', 'api/schemas', 'api/store'],
  /** The mock API's HTTP layer: who may call, body parsing, errors, the request journal and log. */
  'api/http': ['service-kit', 'api/schemas', 'api/store'],
  /** The mock API's state: cases and the case connector, notifications, the blocklist, the clock. */
  'api/store': ['api/schemas'],
  /**
   * The mock API's zod schemas, the one declaration of every body it takes and gives, and the fixed identity
   * directory it answers from (which the console's tutor reads too).
   */
  'api/schemas': ['workflow'],
  /** The exercise's workflow as the guide builds it (guide/), its constants and scenario, written once. */
  workflow: ['lab-settings', 'stages'],
  /**
   * A lab's settings (name, default, rule, message) declared once, their rules applied, the names a lab's
   * parts agree on (a lab's name, its report files, the history's bound), and the shell's copy of both
   * (docker/lab/settings.generated.sh) they generate.
   */
  'lab-settings': [],
  /** The stages a trainee builds and checks, in order, and their titles: declared once. */
  stages: [],
  /** What the HTTP services share: the Host header's name, settings from the environment, browser guards. */
  'service-kit': [],
};

const MAX_LINES = 400;

type Sources = Record<string, string>;
type Graph = Map<string, Set<string>>;

/** app/<room>/...; the mock API's parts are rooms of their own: app/api/<part>/... is `api/<part>`. */
const roomOf = (path: string) => {
  const parts = path.split('/');
  if (parts[1] === 'api' && parts.length > 3) return `api/${parts[2]}`;
  return parts.length > 2 ? (parts[1] as string) : '(root of app)';
};

/** Each file's relative imports (`./x.js` is the source `x.ts`), as the paths they name. */
function importGraph(sources: Sources): Graph {
  const graph: Graph = new Map();
  for (const [path, text] of Object.entries(sources)) {
    const targets = new Set<string>();
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      targets.add(normalize(join(dirname(path), spec as string)).replace(/\.js$/, '.ts'));
    }
    graph.set(path, targets);
  }
  return graph;
}

/**
 * The graph's cycles: each strongly connected component of more than one node, or of one node that
 * imports itself, its nodes sorted (Tarjan's depth-first search).
 */
function cycles(graph: Graph): string[][] {
  const seen = new Map<string, { index: number; low: number }>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): { index: number; low: number } => {
    const mine = { index: seen.size, low: seen.size };
    seen.set(node, mine);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const other = seen.get(next);
      if (other === undefined) mine.low = Math.min(mine.low, visit(next).low);
      else if (onStack.has(next)) mine.low = Math.min(mine.low, other.index);
    }
    if (mine.low !== mine.index) return mine;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    return mine;
  };
  for (const node of [...graph.keys()].sort()) if (!seen.has(node)) visit(node);
  return found;
}

/** The rooms' graph: which rooms the files of each room import (a room's own files are no edge). */
function roomGraph(files: Graph): Graph {
  const rooms: Graph = new Map();
  for (const [path, targets] of files) {
    const room = roomOf(path);
    const edges = rooms.get(room) ?? new Set<string>();
    rooms.set(room, edges);
    for (const target of targets) if (roomOf(target) !== room) edges.add(roomOf(target));
  }
  return rooms;
}

/**
 * Every import that crosses into a room its room may not use, an unknown room, a file too long, a call
 * of n8n's API outside app/n8n, and every import cycle between files and between rooms.
 */
function violations(sources: Sources): string[] {
  const found: string[] = [];
  const files = importGraph(sources);
  for (const [path, text] of Object.entries(sources)) {
    const room = roomOf(path);
    const allowed = ALLOWED[room];
    if (allowed === undefined) found.push(`${path}: room ${room} is not in the table`);
    found.push(...tooLong({ [path]: text }));
    for (const target of files.get(path) ?? []) {
      const other = roomOf(target);
      if (other !== room && !allowed?.includes(other)) found.push(`${path}: ${room} imports ${other}`);
    }
    if (room !== 'n8n' && text.includes('/api/v1/')) found.push(`${path}: calls n8n's API outside app/n8n`);
  }
  for (const cycle of cycles(files)) found.push(`files import each other in a cycle: ${cycle.join(', ')}`);
  for (const cycle of cycles(roomGraph(files)))
    found.push(`rooms import each other in a cycle: ${cycle.join(', ')}`);
  return found;
}

/** Every file over MAX_LINES lines. */
function tooLong(sources: Sources): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(sources)) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) found.push(`${path}: ${lines} lines (at most ${MAX_LINES})`);
  }
  return found;
}

/** Rooms named in a room's list that are not further down the table than it. */
function tableOrder(table: Record<string, readonly string[]>): string[] {
  const order = Object.keys(table);
  return order.flatMap((room, at) =>
    (table[room] ?? [])
      .filter((other) => !(order.indexOf(other) > at))
      .map((other) => `${room} may import ${other}, which is not below it in the table`),
  );
}

function tree(dir: string, extensions: readonly string[], into: Sources = {}): Sources {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tree(path, extensions, into);
    else if (extensions.some((ext) => entry.name.endsWith(ext))) {
      into[relative('.', path)] = readFileSync(path, 'utf8');
    }
  }
  return into;
}

describe('the rooms of app/', () => {
  const sources = tree('app', ['.ts']);

  it('every import goes to a room its room may use, no file is over 400 lines, n8n is called from app/n8n, no import cycle', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    expect(violations(sources)).toEqual([]);
  });

  it('the table lists each room above every room it may import', () => {
    expect(tableOrder(ALLOWED)).toEqual([]);
    expect(tableOrder({ driver: ['api'], api: ['driver'] })).toEqual([
      'api may import driver, which is not below it in the table',
    ]);
  });

  it('no source file in bench/ is over 400 lines', () => {
    const bench = tree('bench', ['.ts', '.mjs']);
    expect(Object.keys(bench).length).toBeGreaterThan(5);
    expect(tooLong(bench)).toEqual([]);
  });

  it.each([
    [
      'the console importing the checker',
      { 'app/console/x.ts': "import { a } from '../check/run-check.js';" },
      ['app/console/x.ts: console imports check'],
    ],
    [
      'the console building a mock API',
      { 'app/console/x.ts': "import { createApp } from '../api/app.js';" },
      ['app/console/x.ts: console imports api'],
    ],
    [
      'the tutor importing the checker',
      { 'app/tutor/x.ts': "import { a } from '../check/run-check.js';" },
      ['app/tutor/x.ts: tutor imports check'],
    ],
    [
      'the judges importing the tutor',
      { 'app/judges/x.ts': "import { a } from '../tutor/explain.js';" },
      ['app/judges/x.ts: judges imports tutor', 'rooms import each other in a cycle: judges, tutor'],
    ],
    [
      'the checker importing the matrix',
      { 'app/check/x.ts': "import { a } from '../acceptance/runner.js';" },
      ['app/check/x.ts: check imports acceptance'],
    ],
    [
      'the matrix importing the checker',
      { 'app/acceptance/x.ts': "import type { a } from '../check/run-check.js';" },
      ['app/acceptance/x.ts: acceptance imports check'],
    ],
    [
      'the n8n client importing the checker',
      { 'app/n8n/x.ts': "export { a } from '../check/kit.js';" },
      ['app/n8n/x.ts: n8n imports check', 'rooms import each other in a cycle: check, judges, n8n'],
    ],
    [
      'the driver importing a target',
      { 'app/driver/x.ts': "import { a } from '../targets/session.js';" },
      ['app/driver/x.ts: driver imports targets', 'rooms import each other in a cycle: driver, targets'],
    ],
    ['a room nobody declared', { 'app/tools/x.ts': '' }, ['app/tools/x.ts: room tools is not in the table']],
    ['a file at the root of app/', { 'app/x.ts': '' }, ['app/x.ts: room (root of app) is not in the table']],
    [
      'the store importing the routes',
      { 'app/api/store/x.ts': "import { a } from '../routes/cases.js';" },
      [
        'app/api/store/x.ts: api/store imports api/routes',
        'rooms import each other in a cycle: api/http, api/routes, api/store',
      ],
    ],
    [
      'a file of 401 lines',
      { 'app/driver/x.ts': 'x\n'.repeat(401) },
      ['app/driver/x.ts: 401 lines (at most 400)'],
    ],
    [
      'the checker calling n8n itself',
      { 'app/check/x.ts': "fetch(base + '/api/v1/executions');" },
      ["app/check/x.ts: calls n8n's API outside app/n8n"],
    ],
    [
      'two files of one room importing each other',
      {
        'app/driver/x.ts': "import { b } from './y.js';",
        'app/driver/y.ts': "import type { a } from './x.js';",
      },
      ['files import each other in a cycle: app/driver/x.ts, app/driver/y.ts'],
    ],
    [
      'a file importing itself',
      { 'app/driver/x.ts': "export { a } from './x.js';" },
      ['files import each other in a cycle: app/driver/x.ts'],
    ],
  ])('fails on %s', (_name, files, expected) => {
    expect(violations({ ...sources, ...files })).toEqual(expected);
  });

  it('fails on a cycle through a file that is already there, and on the rooms it joins', () => {
    const headers = 'app/api/http/body-headers.ts';
    const found = violations({
      ...sources,
      [headers]: `import { readJsonObject } from './json-body.js';\n${sources[headers]}`,
    });
    expect(found).toEqual([
      'files import each other in a cycle: app/api/http/body-headers.ts, app/api/http/early-body.ts, app/api/http/json-body.ts',
    ]);
    const kit = 'app/service-kit/host-header.ts';
    const back = violations({
      ...sources,
      [kit]: `import { ApiError } from '../api/http/errors.js';\n${sources[kit]}`,
    });
    expect(back).toEqual([
      `${kit}: service-kit imports api/http`,
      'rooms import each other in a cycle: api/http, service-kit',
    ]);
  });
});
