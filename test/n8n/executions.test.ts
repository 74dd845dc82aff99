/**
 * The Webhook stage's execution-data judgement: which of the seven fields the checker sent a run's node
 * data shows (the run itself is found by app/n8n/runs.ts: test/n8n/runs.test.ts), against whole and broken
 * execution data.
 */
import { describe, expect, it } from 'vitest';
import { missingFields } from '../../app/n8n/executions.js';

const SENT = {
  event_id: 'evt-chk-1',
  event_type: 'suspicious_login',
  user: 'lab-admin',
  source_ip: '203.0.113.66',
  confidence: 79,
  environment: 'training',
  successful_login: true,
};

/** The run data n8n 2.x keeps for a Webhook node: the body under json.body. */
function runData(body: Record<string, unknown>) {
  return {
    Webhook: [{ startTime: 1, data: { main: [[{ json: { headers: {}, params: {}, query: {}, body } }]] } }],
    Validate: [{ data: { main: [[{ json: { ok: true } }]] } }],
  };
}

describe('the seven fields in the execution data', () => {
  it('sees all seven fields in a run that kept them', () => {
    expect(missingFields(runData(SENT), SENT)).toEqual([]);
  });

  it('names the fields a Webhook lost or changed', () => {
    const sent = { ...SENT, event_id: 'evt-chk-2' };
    expect(missingFields(runData({ ...sent, confidence: '79', user: undefined }), sent)).toEqual([
      'user',
      'confidence',
    ]);
  });

  it('matches values exactly, by the field’s own name, never through inherited names', () => {
    expect(missingFields({ a: { confidence: 79 } }, { confidence: 79 })).toEqual([]);
    expect(missingFields({ a: { confidence: '79' } }, { confidence: 79 })).toEqual(['confidence']);
    expect(missingFields({ toString: 'x' }, { constructor: undefined, toString: 'y' })).toEqual([
      'constructor',
      'toString',
    ]);
  });
});
