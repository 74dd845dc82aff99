/**
 * The stages a trainee builds and checks, in order, with the titles the trainee guide and the editor's
 * nodes give them: the one declaration of both. The stage checker and its report, the console, the
 * starters, the class report and board, and the guide's workflow take them from here; the lab's shell
 * reads docker/lab/stages.generated.sh, written from here (./generate-cli.ts; a test fails when it is
 * stale). The seed's node table in order, then the three workflow rules the matrix proves.
 *
 * This room holds what a stage IS: its name, order and title (here) and its words (./briefs.ts: its goal
 * and each expectation with its stimulus). Adding a stage: its name and title here, its goal and
 * expectations in ./briefs.ts, its judges in app/check/expectations/<stage>.ts (listed in the scenario of
 * app/check/scenarios.ts whose stimulus they judge), its step of the guide's workflow in
 * app/workflow/guide/response.ts (the nodes its table adds); each is typed by StageName, so the compiler
 * names every place left. The nodes stay in the workflow's room: a trainee's workflow need not share
 * their names.
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
