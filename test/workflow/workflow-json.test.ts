/**
 * Static checks of the guide's whole workflows as docker/workflows/ holds them (what `make solution` and
 * LAB_MODE=demo publish): node types exist in the pinned n8n, every HTTP Request node calls a route of the
 * mock API's contract at `{{ $env.MOCK_API_URL }}`, `$env` holds nothing else they read, no credentials,
 * the webhooks the checker triggers. No n8n needed: the node catalogue is the committed fixture
 * test/pinned-n8n/node-types-2.41.1.json. Every check is also shown to fail on a deliberately broken copy.
 * (guide-exports.test.ts runs the same checks on every stage's partial.)
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  RESPONSE_WEBHOOK_PATH,
  RESPONSE_WORKFLOW,
  ROLLBACK_WEBHOOK_PATH,
  ROLLBACK_WORKFLOW,
} from '../../app/workflow/constants.js';
import type { N8nExport, N8nExportNode } from '../../app/workflow/export.js';
import { RESPONSE_ID, ROLLBACK_ID } from '../../app/workflow/guide/exports.js';
import { makeTestApp } from '../helpers/test-app.js';
import {
  checkEnv,
  checkHttpRoutes,
  checkJavaScript,
  checkNoCredentials,
  checkNodeTypes,
  checkWebhook,
  checkWellFormed,
  httpNodes,
  readExport,
  readNodeTypes,
  routeOf,
  WORKFLOW_DIR,
  WORKFLOW_ROUTES,
} from './checks.js';

const fixture = readNodeTypes();
const response = readExport(join(WORKFLOW_DIR, 'suspicious-login-response.json'));
const rollback = readExport(join(WORKFLOW_DIR, 'suspicious-login-rollback.json'));
const both = [response, rollback].map((wf) => [wf.name, wf] as const);

/** A deep copy with `edit` applied to its node `name`: the broken copies below. */
function broken(wf: N8nExport, name: string, edit: (n: N8nExportNode) => void): N8nExport {
  const copy = structuredClone(wf);
  const n = copy.nodes.find((x) => x.name === name);
  if (!n) throw new Error(`no node ${name} in ${wf.name}`);
  edit(n);
  return copy;
}

describe('the workflow files', () => {
  it('are the two named workflows with fixed ids (importing them again updates the same workflows)', () => {
    expect(response).toMatchObject({ id: RESPONSE_ID, name: RESPONSE_WORKFLOW, active: false });
    expect(rollback).toMatchObject({ id: ROLLBACK_ID, name: ROLLBACK_WORKFLOW, active: false });
  });

  it.each(both)('%s is well formed', (_name, wf) => {
    expect(checkWellFormed(wf)).toEqual([]);
  });

  it('a copy with a dangling connection, a duplicate name or a Wait without webhookId is caught', () => {
    const dangling = structuredClone(response);
    dangling.connections['Valid?'] = { main: [[{ node: 'Nowhere', type: 'main', index: 0 }]] };
    expect(checkWellFormed(dangling)).toEqual(['Valid? connects to unknown Nowhere']);
    const twice = broken(response, 'Record', (n) => {
      n.name = 'Block';
    });
    expect(checkWellFormed(twice)).toContain('duplicate node name Block');
    const noHook = broken(response, 'Wait for approval', (n) => {
      delete n.webhookId;
    });
    expect(checkWellFormed(noHook)).toEqual(['Wait for approval: no webhookId']);
  });
});

describe('the JavaScript of Code nodes and expressions compiles', () => {
  it.each(both)('%s', (_n, wf) => {
    expect(checkJavaScript(wf)).toEqual([]);
  });

  it('a Code node or an expression with a syntax error is caught', () => {
    const badCode = broken(response, 'Validate', (n) => {
      n.parameters.jsCode = 'return [{ json: { valid: true }];';
    });
    expect(checkJavaScript(badCode)).toEqual([expect.stringContaining('Validate: jsCode does not compile')]);
    const badExpression = broken(response, 'Record', (n) => {
      n.parameters.jsonBody = '={{ JSON.stringify($json.record }}';
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

  it.each(both)('%s uses only existing types and versions', (_n, wf) => {
    expect(checkNodeTypes(wf, fixture)).toEqual([]);
  });

  it('a wrong typeVersion or an unknown type is caught', () => {
    const wrongVersion = broken(response, 'Block', (n) => {
      n.typeVersion = 4.9;
    });
    expect(checkNodeTypes(wrongVersion, fixture)).toEqual([expect.stringContaining('no typeVersion 4.9')]);
    const unknownType = broken(rollback, 'Unblock', (n) => {
      n.type = 'n8n-nodes-base.httpRequestNope';
    });
    expect(checkNodeTypes(unknownType, fixture)).toEqual([expect.stringContaining('does not exist')]);
  });
});

describe('every HTTP Request node calls a route of the contract at {{ $env.MOCK_API_URL }}', () => {
  it('the workflow routes are routes the mock API serves (its generated OpenAPI document)', async () => {
    const doc = z
      .object({ paths: z.record(z.string(), z.record(z.string(), z.unknown())) })
      .parse((await makeTestApp().get('/openapi.json')).body);
    const served = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{param}')}`),
    );
    for (const route of WORKFLOW_ROUTES) expect(served).toContain(route);
  });

  it.each(both)('%s', (_n, wf) => {
    expect(checkHttpRoutes(wf)).toEqual([]);
  });

  it('each workflow calls the routes of its steps', () => {
    expect(new Set(httpNodes(response).map(routeOf))).toEqual(
      new Set([
        'GET /identity/{param}',
        'GET /cases/{param}',
        'POST /notify',
        'POST /blocklist',
        'GET /blocklist/{param}',
        'POST /cases',
        'GET /health',
      ]),
    );
    expect(httpNodes(rollback).map(routeOf)).toEqual([
      'GET /cases/{param}',
      'DELETE /blocklist/{param}',
      'GET /blocklist/{param}',
      'POST /cases',
    ]);
  });

  const url = (path: string) => (n: N8nExportNode) => {
    n.parameters.url = `={{ $env.MOCK_API_URL }}${path}`;
  };
  const cases: [string, N8nExport, RegExp][] = [
    [
      'a path the mock API lacks',
      broken(response, 'Health', url('/nope')),
      /Health: GET \/nope is not a route/,
    ],
    [
      "a trainer's control route",
      broken(response, 'Record', url('/reset')),
      /Record: POST \/reset is not a route/,
    ],
    [
      'a method the route lacks',
      broken(rollback, 'Unblock', (n) => {
        n.parameters.method = 'PUT';
      }),
      /Unblock: PUT \/blocklist\/\{param\} is not a route/,
    ],
    [
      'a literal address',
      broken(response, 'Health', (n) => {
        n.parameters.url = 'http://127.0.0.1:8081/health';
      }),
      /does not start with[\s\S]*Health: url names an address of its own/,
    ],
    [
      'an address inside a Code node',
      broken(response, 'Validate', (n) => {
        n.parameters.jsCode = "await fetch('http://mock-api:8081/reset'); return [{ json: {} }];";
      }),
      /Validate: jsCode names an address of its own/,
    ],
    [
      'a POST without its JSON body',
      broken(response, 'Block', (n) => {
        n.parameters.sendBody = false;
      }),
      /Block: a POST sends a JSON body/,
    ],
    [
      'a GET with a body',
      broken(response, 'Health', (n) => {
        n.parameters.sendBody = true;
      }),
      /Health: a GET \/health sends no body/,
    ],
  ];

  it.each(cases)('a copy with %s is caught', (_what, wf, expected) => {
    expect(checkHttpRoutes(wf).join('\n')).toMatch(expected);
  });
});

describe('the workflows read only the lab’s variables and carry no credentials', () => {
  it.each(both)('%s', (_n, wf) => {
    expect(checkEnv(wf)).toEqual([]);
    expect(checkNoCredentials(wf)).toEqual([]);
  });

  it('a copy reading another variable ($env.X or $env["X"]) is caught', () => {
    const dotted = broken(response, 'Validate', (n) => {
      n.parameters.jsCode = `const key = $env.N8N_ENCRYPTION_KEY;\n${String(n.parameters.jsCode)}`;
    });
    expect(checkEnv(dotted)).toEqual(['Validate: reads $env.N8N_ENCRYPTION_KEY, which the lab does not set']);
    const bracketed = broken(response, 'Health', (n) => {
      n.parameters.url = "={{ $env['API_URL'] }}/health";
    });
    expect(checkEnv(bracketed)).toEqual(['Health: reads $env.API_URL, which the lab does not set']);
  });

  it('a copy with credentials, an authentication or a header is caught', () => {
    const credentials = broken(response, 'Enrich', (n) => {
      Object.assign(n, { credentials: { httpHeaderAuth: { id: '1', name: 'token' } } });
    });
    expect(checkNoCredentials(credentials)).toEqual(['Enrich: carries credentials']);
    const auth = broken(response, 'Enrich', (n) => {
      n.parameters.authentication = 'genericCredentialType';
    });
    expect(checkNoCredentials(auth)).toEqual(['Enrich: authentication genericCredentialType']);
    const header = broken(response, 'Enrich', (n) => {
      n.parameters.sendHeaders = true;
      n.parameters.headerParameters = { parameters: [{ name: 'Authorization', value: 'Bearer x' }] };
    });
    expect(checkNoCredentials(header)).toEqual(['Enrich: sends headers of its own']);
  });
});

describe('the webhooks the checker triggers', () => {
  it('response on POST suspicious-login, rollback on POST suspicious-login-rollback, both answering at once', () => {
    expect(checkWebhook(response, RESPONSE_WEBHOOK_PATH)).toEqual([]);
    expect(checkWebhook(rollback, ROLLBACK_WEBHOOK_PATH)).toEqual([]);
  });

  it('a copy on another path, another method or answering at the end is caught', () => {
    const edited = broken(rollback, 'Webhook', (n) => {
      Object.assign(n.parameters, { path: 'suspicious-login', httpMethod: 'GET', responseMode: 'lastNode' });
    });
    expect(checkWebhook(edited, ROLLBACK_WEBHOOK_PATH)).toEqual([
      'Webhook: HTTP Method must be POST',
      'Webhook: Path must be suspicious-login-rollback',
      'Webhook: Respond must be Immediately',
    ]);
    const two = structuredClone(response);
    two.nodes.push({ ...structuredClone(response.nodes[0] as N8nExportNode), name: 'Webhook 2' });
    expect(checkWebhook(two, RESPONSE_WEBHOOK_PATH)).toEqual(['expected one Webhook, found 2']);
  });
});
