/**
 * Static checks of the reference workflows (docker/workflows/*.json): node types exist in the pinned
 * n8n, every HTTP Request node calls a contract route through the single base-URL setting, and the
 * branches of docs/workflow-protocol.md exist. No n8n needed: the node catalogue is the committed fixture
 * test/pinned-n8n/node-types-2.41.1.json (test/pinned-n8n/extract-node-types.mjs). Every check is also shown to
 * fail on a deliberately broken copy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECIDE } from '../../app/workflow/n8n/stage-nodes.js';
import { WORKFLOW_FILES } from '../../app/workflow/n8n/workflows.js';
import { makeTestApp } from '../helpers/test-app.js';
import {
  checkHttpRoutes,
  checkJavaScript,
  checkNodeTypes,
  checkResponseBranches,
  checkRollbackBranches,
  checkWellFormed,
  httpCalls,
  loadJson,
  type N8nNode,
  type N8nWorkflow,
  type NodeTypeFixture,
  ROOT,
  WORKFLOW_DIR,
  WORKFLOW_ROUTES,
} from './checks.js';

const fixture = loadJson<NodeTypeFixture>(join(ROOT, 'test', 'pinned-n8n', 'node-types-2.41.1.json'));
const response = loadJson<N8nWorkflow>(join(WORKFLOW_DIR, 'suspicious-login-response.json'));
const rollback = loadJson<N8nWorkflow>(join(WORKFLOW_DIR, 'suspicious-login-rollback.json'));
const both = [response, rollback];

/** A deep copy with `edit` applied: the broken copies below. */
function broken(wf: N8nWorkflow, edit: (copy: N8nWorkflow) => void): N8nWorkflow {
  const copy = structuredClone(wf);
  edit(copy);
  return copy;
}

function nodeOf(wf: N8nWorkflow, name: string): N8nNode {
  const n = wf.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name} in ${wf.name}`);
  return n;
}

/** Re-points every connection into `from`'s output `output` to `to`. */
function rewire(wf: N8nWorkflow, from: string, output: number, to: string): void {
  const main = wf.connections[from]?.main;
  if (!main) throw new Error(`no connections from ${from}`);
  main[output] = [{ node: to, type: 'main', index: 0 }];
}

describe('the workflow files', () => {
  it('are the two named workflows with fixed ids', () => {
    expect(response).toMatchObject({ id: 'SuspLoginResp001', name: 'Suspicious Login Response' });
    expect(rollback).toMatchObject({ id: 'SuspLoginRollbk1', name: 'Suspicious Login Rollback' });
  });

  it('are what the generator (app/workflow/n8n/generate-cli.ts) writes: no hand edit drifted from it', () => {
    expect(Object.keys(WORKFLOW_FILES).sort()).toEqual([
      'suspicious-login-response.json',
      'suspicious-login-rollback.json',
    ]);
    for (const [file, text] of Object.entries(WORKFLOW_FILES)) {
      expect(text(), file).toBe(readFileSync(join(WORKFLOW_DIR, file), 'utf8'));
    }
  });

  it.each(both.map((wf) => [wf.name, wf] as const))('%s is well formed', (_name, wf) => {
    expect(checkWellFormed(wf)).toEqual([]);
  });

  it('a copy with a dangling connection or a duplicate name is caught', () => {
    expect(checkWellFormed(broken(response, (c) => rewire(c, 'Valid?', 0, 'Nowhere')))).not.toEqual([]);
    expect(
      checkWellFormed(
        broken(response, (c) => {
          nodeOf(c, 'Done').name = 'Record';
        }),
      ),
    ).not.toEqual([]);
  });
});

describe('the JavaScript of Code nodes and expressions compiles', () => {
  it.each(both.map((wf) => [wf.name, wf] as const))('%s', (_n, wf) => {
    expect(checkJavaScript(wf)).toEqual([]);
  });

  it('a Code node or an expression with a syntax error is caught', () => {
    const badCode = broken(response, (c) => {
      nodeOf(c, 'Validate').parameters.jsCode = 'return [{ json: { valid: true }];';
    });
    expect(checkJavaScript(badCode)).toEqual([expect.stringContaining('Validate: jsCode does not compile')]);
    const badExpression = broken(response, (c) => {
      nodeOf(c, 'Record').parameters.jsonBody = '={{ JSON.stringify($json.record }}';
    });
    expect(checkJavaScript(badExpression)).toEqual([
      expect.stringContaining('Record: expression in jsonBody does not compile'),
    ]);
  });
});

describe('node types and versions exist in the pinned n8n', () => {
  it('the fixture is the pinned n8n catalogue', () => {
    expect(fixture.n8n).toBe('2.41.1');
    expect(Object.keys(fixture.nodes).length).toBeGreaterThan(400);
    expect(fixture.nodes['n8n-nodes-base.httpRequest']).toContain(4.2);
  });

  it.each(both.map((wf) => [wf.name, wf] as const))('%s uses only existing types and versions', (_n, wf) => {
    expect(checkNodeTypes(wf, fixture)).toEqual([]);
  });

  it('a wrong typeVersion or an unknown type is caught', () => {
    const wrongVersion = broken(response, (c) => {
      nodeOf(c, 'Block').typeVersion = 4.9;
    });
    expect(checkNodeTypes(wrongVersion, fixture)).toEqual([expect.stringContaining('no typeVersion 4.9')]);
    const unknownType = broken(rollback, (c) => {
      nodeOf(c, 'Unblock').type = 'n8n-nodes-base.httpRequestNope';
    });
    expect(checkNodeTypes(unknownType, fixture)).toEqual([expect.stringContaining('does not exist')]);
  });
});

describe('every HTTP Request node targets a contract route via the single base-URL setting', () => {
  it('the workflow routes are routes the mock API serves (its generated OpenAPI document)', async () => {
    const doc = (await makeTestApp().get('/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const served = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{param}')}`),
    );
    for (const route of WORKFLOW_ROUTES) expect(served).toContain(route);
  });

  it.each(both.map((wf) => [wf.name, wf] as const))('%s', (_n, wf) => {
    expect(checkHttpRoutes(wf)).toEqual([]);
    expect(httpCalls(wf).length).toBeGreaterThan(3);
  });

  it('the response workflow uses the routes of its steps', () => {
    const used = new Set(httpCalls(response).map((c) => c.route));
    expect([...used].sort()).toEqual(
      [
        'GET /identity/{param}',
        'GET /cases/{param}',
        'POST /notify',
        'POST /blocklist',
        'GET /blocklist/{param}',
        'POST /cases',
        'GET /health',
      ].sort(),
    );
  });

  it('a node calling /nope, a control route or a wrong method is caught', () => {
    const nope = broken(response, (c) => {
      nodeOf(c, 'Health').parameters.url = "={{ $('Settings').first().json.api }}/nope";
    });
    expect(checkHttpRoutes(nope)).toEqual([expect.stringContaining('GET /nope is not a route')]);
    const control = broken(response, (c) => {
      nodeOf(c, 'Health').parameters.url = "={{ $('Settings').first().json.api }}/reset";
      nodeOf(c, 'Health').parameters.method = 'POST';
    });
    expect(checkHttpRoutes(control).join('\n')).toContain('POST /reset is not a route');
    const put = broken(rollback, (c) => {
      nodeOf(c, 'Unblock').parameters.method = 'PUT';
    });
    expect(checkHttpRoutes(put)).toEqual([expect.stringContaining('PUT /blocklist/{param} is not a route')]);
  });

  it('a literal address, a second $env reader or an unencoded path parameter is caught', () => {
    const literal = broken(response, (c) => {
      nodeOf(c, 'Health').parameters.url = 'http://127.0.0.1:8081/health';
    });
    expect(checkHttpRoutes(literal).join('\n')).toMatch(/does not start with the base-URL setting/);
    expect(checkHttpRoutes(literal).join('\n')).toMatch(/Health: contains a literal URL/);
    const secondReader = broken(response, (c) => {
      nodeOf(c, 'Health').parameters.url = '={{ $env.MOCK_API_URL }}/health';
    });
    expect(checkHttpRoutes(secondReader).join('\n')).toMatch(/read from \$env.MOCK_API_URL by one Set node/);
    const raw = broken(response, (c) => {
      nodeOf(c, 'Enrich').parameters.url =
        "={{ $('Settings').first().json.api }}/identity/{{ $('Validate').first().json.alert.user }}";
    });
    expect(checkHttpRoutes(raw)).toEqual([expect.stringContaining('is not encodeURIComponent')]);
    const noTimeout = broken(response, (c) => {
      nodeOf(c, 'Record').parameters.options = {};
    });
    expect(checkHttpRoutes(noTimeout)).toEqual([expect.stringContaining('no request timeout')]);
  });
});

describe('the branches of the response workflow exist', () => {
  it('all of them', () => {
    expect(checkResponseBranches(response)).toEqual([]);
  });

  const cases: [string, (c: N8nWorkflow) => void, RegExp][] = [
    [
      'validation failure enriches anyway',
      (c) => rewire(c, 'Valid?', 1, 'Enrich'),
      /validation notification is not reachable|Enrich is reachable without passing a validation gate/,
    ],
    [
      'validation notification not followed by Stop and Error',
      (c) => rewire(c, 'Notify validation error', 0, 'Enrich'),
      /lead straight to Stop and Error/,
    ],
    ['below threshold blocks', (c) => rewire(c, DECIDE, 1, 'Block'), /below threshold/],
    [
      'below threshold looks up the blocklist',
      (c) => rewire(c, DECIDE, 1, 'Blocklist lookup'),
      /below threshold/,
    ],
    [
      'a duplicate delivery asks for approval again',
      (c) => rewire(c, 'Duplicate delivery?', 0, 'Request approval'),
      /duplicate delivery: the gate \(true\) does not lead to Record/,
    ],
    [
      'approval wait without time limit',
      (c) => {
        nodeOf(c, 'Wait for approval').parameters.limitWaitTime = false;
      },
      /approval wait: needs httpMethod POST and a time limit/,
    ],
    [
      'approval wait with a hard-coded limit',
      (c) => {
        nodeOf(c, 'Wait for approval').parameters.resumeAmount = 120;
      },
      /the limit must be the APPROVAL_TIMEOUT_SECONDS setting/,
    ],
    [
      'approval request without the resume URL',
      (c) => {
        const n = nodeOf(c, 'Request approval');
        n.parameters.jsonBody = String(n.parameters.jsonBody).replace('resume_url: $execution.resumeUrl', '');
      },
      /does not carry resume_url/,
    ],
    [
      'rejection blocks',
      (c) => rewire(c, 'Approved?', 1, 'Block'),
      /no gate after the wait|no-action branch/,
    ],
    ['block skips the approval', (c) => rewire(c, DECIDE, 0, 'Block'), /without passing the approval wait/],
    [
      'block not verified',
      (c) => rewire(c, 'Check block', 0, 'Build record'),
      /expected one block verification \(GET \/blocklist\/\{ip\} right after Block\), found 0/,
    ],
    [
      'block for 60 minutes',
      (c) => {
        const n = nodeOf(c, 'Block');
        n.parameters.jsonBody = String(n.parameters.jsonBody).replace(
          'expires_minutes: 10',
          'expires_minutes: 60',
        );
      },
      /expires_minutes: 10/,
    ],
    [
      'connector failure repeats the block',
      (c) => rewire(c, 'Add record_retry', 0, 'Block'),
      /Block is reachable after Record/,
    ],
    [
      'connector failure without owner notification',
      (c) => rewire(c, 'Connector failure?', 0, 'Health'),
      /owner notification/,
    ],
    [
      'unbounded health polling',
      (c) => {
        const n = nodeOf(c, 'Polls left?');
        n.parameters.conditions = JSON.parse(
          JSON.stringify(n.parameters.conditions).replace('$runIndex < 29', 'true'),
        );
      },
      /no bound/,
    ],
    [
      'bound that does not stop',
      (c) => rewire(c, 'Polls left?', 1, 'Done'),
      /does not end the run with Stop and Error/,
    ],
    ['no pause between polls', (c) => rewire(c, 'Polls left?', 0, 'Health'), /no pause/],
    [
      'healthy connector does not resume Record',
      (c) => rewire(c, 'Healthy?', 0, 'Done'),
      /does not lead back to Record/,
    ],
  ];

  it.each(cases)('a copy where %s is caught', (_what, edit, expected) => {
    const problems = checkResponseBranches(broken(response, edit));
    expect(problems.join('\n')).toMatch(expected);
  });
});

describe('the branches of the rollback workflow exist', () => {
  it('delete, verify absence, record rollback and recovery time', () => {
    expect(checkRollbackBranches(rollback)).toEqual([]);
  });

  it('a copy that records without verifying absence is caught', () => {
    const skip = broken(rollback, (c) => rewire(c, 'Unblocked?', 0, 'Build rollback record'));
    expect(checkRollbackBranches(skip).join('\n')).toMatch(/DELETE must be followed by the verification GET/);
  });

  it('a copy that does not record the recovery time is caught', () => {
    const noTime = broken(rollback, (c) => {
      const n = nodeOf(c, 'Build rollback record');
      n.parameters.jsCode = String(n.parameters.jsCode).replaceAll('recovery_seconds', 'took');
    });
    expect(checkRollbackBranches(noTime)).toEqual([expect.stringContaining('recovery_seconds')]);
  });

  it('a copy on the wrong webhook path is caught', () => {
    const path = broken(rollback, (c) => {
      nodeOf(c, 'Webhook').parameters.path = 'suspicious-login';
    });
    expect(checkRollbackBranches(path)).toEqual(['webhook: path must be suspicious-login-rollback']);
  });
});
