/**
 * What a check covers, in the words the page, its status line and the console's answers use; its own file
 * with no import, so the page's script takes it without the schemas (zod) beside it.
 */

/**
 * The stage on its own (the checker's `--only`: quicker, for a rerun) or the stage with every stage before
 * it (what the stage needs to pass in the end). `all` is every stage: on its own means one stage.
 */
export function checkScope(stage: string, only: boolean): string {
  if (stage === 'all') return 'every stage';
  return only ? `${stage} on its own` : `everything up to ${stage}`;
}
