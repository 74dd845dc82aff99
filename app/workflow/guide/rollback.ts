/**
 * "Suspicious Login Rollback" as docs/trainee-guide.md builds it in its last stage: a second workflow,
 * every node of the stage's table with the connections the guide declares.
 */
import { ROLLBACK_WEBHOOK_PATH } from '../constants.js';
import { BUILD_ROLLBACK_RECORD } from './code.js';
import { code, type GuideNode, http, iff, stop, webhook } from './kinds.js';

const API = '{{ $env.MOCK_API_URL }}';
const IP_URL = `${API}/blocklist/{{ $('Case lookup').first().json.source_ip }}`;

export function rollbackGuideNodes(): GuideNode[] {
  return [
    webhook(ROLLBACK_WEBHOOK_PATH, { position: [0, 0], next: [{ output: 'main', to: 'Note the time' }] }),
    code(
      'Note the time',
      'return [{ json: { requested_at: new Date().toISOString() } }];',
      { position: [1, 0], next: [{ output: 'main', to: 'Case lookup' }] },
      true,
    ),
    http(
      'Case lookup',
      { method: 'GET', url: `${API}/cases/{{ $('Webhook').first().json.body.event_id }}` },
      { position: [2, 0], next: [{ output: 'main', to: 'Unblock' }] },
    ),
    http(
      'Unblock',
      { method: 'DELETE', url: IP_URL },
      { position: [3, 0], next: [{ output: 'main', to: 'Verify absence' }] },
    ),
    http(
      'Verify absence',
      { method: 'GET', url: IP_URL },
      { position: [4, 0], next: [{ output: 'main', to: 'Absent?' }] },
    ),
    iff(
      'Absent?',
      { value1: '{{ $json.blocked }}', operator: 'Boolean → is false' },
      {
        position: [5, 0],
        next: [
          { output: 'true', to: 'Build rollback record' },
          { output: 'false', to: 'Stop: still blocked' },
        ],
      },
    ),
    stop('Stop: still blocked', "{{ 'Still blocked: ' + JSON.stringify($json) }}", { position: [6, 1] }),
    code('Build rollback record', BUILD_ROLLBACK_RECORD, {
      position: [6, 0],
      next: [{ output: 'main', to: 'Record rollback' }],
    }),
    http(
      'Record rollback',
      { method: 'POST', url: `${API}/cases`, json: '{{ JSON.stringify($json.record) }}', inline: true },
      { position: [7, 0] },
    ),
  ];
}
