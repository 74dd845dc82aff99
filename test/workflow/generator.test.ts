/**
 * The generator (app/workflow/n8n/): node references and connections are checked at build time, a
 * variant is one node's override, and a Code node's jsCode is its function plus what that function uses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPROVAL_THRESHOLD } from '../../app/workflow/constants.js';
import {
  buildWorkflow,
  code,
  codeParameters,
  iff,
  type NodeSpec,
  noOp,
} from '../../app/workflow/n8n/build.js';
import { codeNodeSource } from '../../app/workflow/n8n/js-source.js';
import { responseNodes, responseWorkflow } from '../../app/workflow/n8n/response.js';
import { rollbackWorkflow } from '../../app/workflow/n8n/rollback.js';
import { DECIDE } from '../../app/workflow/n8n/stage-nodes.js';
import type { N8nWorkflow } from './checks.js';
import { mismatches, SCENARIOS } from './scenarios.js';

const build = (nodes: NodeSpec[]) => () => buildWorkflow({ id: 'x', name: 'test', number: 9, nodes });

describe('building a workflow', () => {
  it('fails on a misspelt $() reference', () => {
    const nodes = responseNodes().map((n) =>
      n.name === 'Add record_retry'
        ? {
            ...n,
            parameters: {
              ...n.parameters,
              jsCode: String(n.parameters.jsCode).replace("$('Build record')", "$('Buld record')"),
            },
          }
        : n,
    );
    expect(build(nodes)).toThrow("Add record_retry: $('Buld record') names no node");
  });

  it('fails on a reference in an expression and on a connection to no node', () => {
    expect(build([iff('A', [0, 0], "$('Nope').first().json.x", 'B', 'C'), noOp('B', [1, 0])])).toThrow(
      /A connects to C, which is no node; A: \$\('Nope'\) names no node/,
    );
  });

  it('fails on two nodes of one name', () => {
    expect(build([noOp('A', [0, 0]), noOp('A', [1, 0])])).toThrow('two nodes named A');
  });

  it('fails on an override of a node that does not exist', () => {
    expect(() => responseWorkflow({ 'Decide (confidence > 80)': { next: [] } })).toThrow(/no such node/);
  });
});

describe('a variant is one node overridden', () => {
  it('an expression: the threshold as > instead of >=; only that node changes', async () => {
    const variant = responseWorkflow({
      [DECIDE]: (n) =>
        iff(
          n.name,
          n.position,
          `$('Validate').first().json.alert.confidence > ${APPROVAL_THRESHOLD}`,
          'Duplicate delivery?',
          'Below threshold',
        ),
    });
    const reference = responseWorkflow();
    const changed = variant.nodes.filter((n, i) => JSON.stringify(n) !== JSON.stringify(reference.nodes[i]));
    expect(changed.map((n) => n.name)).toEqual([DECIDE]);
    const differ = await mismatches(
      variant as unknown as N8nWorkflow,
      rollbackWorkflow() as unknown as N8nWorkflow,
    );
    expect(differ.map((d) => d.split(':')[0])).toEqual(['at the threshold']);
  });

  it('a Code node from another file: Build record with a second case on duplicate delivery', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wf-variant-'));
    try {
      const file = join(dir, 'second-case.ts');
      writeFileSync(
        file,
        `import { buildCaseRecord } from '${join(import.meta.dirname, '../../app/workflow/decisions.js')}';
export function secondCaseNode({ $, $input }) {
  const record = buildCaseRecord($('Validate').first().json, $('Check identity').first().json.identity, 'create', $input.first().json.outcome);
  return [{ json: { record: { ...record, event_id: record.event_id + '-2' } } }];
}
`,
      );
      const variant = responseWorkflow({ 'Build record': { parameters: codeParameters(file) } });
      const jsCode = String(variant.nodes.find((n) => n.name === 'Build record')?.parameters.jsCode);
      expect(jsCode).toContain('function buildCaseRecord(');
      expect(jsCode.trim().endsWith('return secondCaseNode({ $, $input });')).toBe(true);
      const differ = await mismatches(
        variant as unknown as N8nWorkflow,
        rollbackWorkflow() as unknown as N8nWorkflow,
        {},
        SCENARIOS.filter((s) => s.name === 'duplicate: the case says blocked'),
      );
      expect(differ).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a Code node’s jsCode', () => {
  it('is the node function, what it uses (constants, decisions) and the call, nothing else', () => {
    const js = codeNodeSource('check-block.ts');
    expect(js).toMatch(/^function isJsonObject\(/m);
    expect(js).toMatch(/^function checkBlock\(/m);
    expect(js).toMatch(/^function checkBlockNode\(\{ \$, \$input \}\)/m);
    expect(js).not.toMatch(/^function validateAlert\(/m);
    expect(js).not.toMatch(/^(import|export) /m);
    expect(js).not.toMatch(/: (string|number|unknown)\b/);
    expect(js.trim().endsWith('return checkBlockNode({ $, $input });')).toBe(true);
  });

  it('refuses a file that exports no function or two, and a name declared twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wf-code-'));
    try {
      const two = join(dir, 'two.ts');
      writeFileSync(two, 'export function a() { return []; }\nexport function b() { return []; }\n');
      expect(() => codeNodeSource(two)).toThrow('must export exactly one function');
      const clash = join(dir, 'clash.ts');
      writeFileSync(
        clash,
        'function checkBlock() {}\nexport function clashNode() { return checkBlock(); }\n',
      );
      expect(() => codeNodeSource(clash)).toThrow(/checkBlock is declared in .*decisions.ts and .*clash.ts/);
      const loose = join(dir, 'loose.ts');
      writeFileSync(loose, 'console.log(1);\nexport function looseNode() { return []; }\n');
      expect(() => codeNodeSource(loose)).toThrow(/only named function and single const declarations/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is the same whatever loaded the module (transpiled from the source text)', () => {
    expect(code('X', [0, 0], 'validate.ts', 'Y').parameters.jsCode).toBe(codeNodeSource('validate.ts'));
  });
});
