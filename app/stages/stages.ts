/**
 * The stages a trainee builds and checks, in order, with the titles the trainee guide and the editor's
 * nodes give them: the one declaration of both. The stage checker and its report, the console, the
 * starters, the class report and board, and the guide's workflow take them from here; the lab's shell
 * reads docker/lab/stages.generated.sh, written from here. This room holds what a stage IS: its name, order
 * and title (here) and its words (./briefs.ts). The nodes stay in the workflow's room: a trainee's workflow
 * need not share their names.
 *
 * Adding a stage touches, in order (the compiler names those typed by StageName; the rest, a test):
 *   1. STAGE_NAMES and STAGE_TITLES, here (compiler: STAGE_TITLES is keyed by StageName);
 *   2. its goal and expectations in ./briefs.ts (compiler: keyed by StageName; test/stages/briefs.test.ts:
 *      the brief lists exactly what the checker judges);
 *   3. its judges in app/judges/expectations/<stage>.ts, re-exported by app/judges/expectations.ts and listed
 *      in the scenario of app/judges/scenarios.ts whose stimulus they judge (test/stages/new-stage.test.ts:
 *      every stage is judged by some scenario);
 *   4. its step of the guide's workflow in app/workflow/guide/response.ts, the nodes its table adds
 *      (test/stages/new-stage.test.ts: one step a stage, in order; test/workflow/guide-stages.test.ts: the
 *      guide up to it passes its check and fails the next);
 *   5. its section of docs/trainee-guide.md (test/docs/guide-workflow.test.ts: one section a stage, its
 *      table and code the workflow's);
 *   6. `npm run generate` for docker/lab/stages.generated.sh (test/stages/shell-copy.test.ts);
 *   7. if it is judged from the first alert, app/tutor/classify.ts's FIRST_STAGES (no test: a list of
 *      StageName, which the compiler only holds to names that exist), and a broken variant of the guide's
 *      workflow in app/check/variants.ts (typed `breaks: StageName`; test/check/variants-*.test.ts judge
 *      each variant, none requires one a stage: Webhook has none).
 * What keys by stage (the report, the history, the tutor's file, the class report's columns, the starters,
 * the tutor's words) follows STAGE_NAMES, or fails to compile until it does.
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
