/**
 * The stages a trainee builds and checks, in order, with the titles the trainee guide and the editor's
 * nodes give them: the one declaration of both. The stage checker and its report, the console, the
 * starters, the class report and board, and the guide's workflow take them from here; the lab's shell
 * prints the list (test/stages/shell-copy.test.ts holds it equal). The seed's node table in order, then
 * the three workflow rules the matrix proves.
 */
export const STAGE_NAMES = [
  'webhook',
  'validate',
  'enrich',
  'case-lookup',
  'decide',
  'approve',
  'block',
  'record',
  'idempotency',
  'connector-failure',
  'rollback',
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

/** The stages' titles, as the trainee guide and the editor's nodes name them. */
export const STAGE_TITLES = {
  webhook: 'Webhook',
  validate: 'Validate',
  enrich: 'Enrich',
  'case-lookup': 'Case lookup',
  decide: 'Decide',
  approve: 'Approve',
  block: 'Block',
  record: 'Record',
  idempotency: 'Idempotency',
  'connector-failure': 'Connector failure',
  rollback: 'Rollback',
} as const satisfies Record<StageName, string>;
