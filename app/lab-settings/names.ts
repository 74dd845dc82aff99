/**
 * The names a lab's parts agree on, declared once: the rule for a lab's name, its report files' names and how
 * many check history lines are kept. TypeScript imports them; the host scripts source their copy in
 * docker/lab/settings.generated.sh (./shell.ts writes it); test/lab-settings/copies.test.ts holds compose.yaml's,
 * the Kubernetes manifests' and the scripts' mentions to them.
 */

/** A lab's name: lower-case letters, digits and '-', starting with a letter, not ending with '-', at most 32. */
export const LAB_NAME_PATTERN = /^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/;
/** The rule in words, as the host scripts refuse a bad LAB=. */
export const LAB_NAME_WORDS = "lower-case letters, digits and '-', starting with a letter, at most 32";

/** The stage checker's last report, in a lab's reports folder and the host's. */
export const REPORT_FILE = 'check-last.json';
/** Every check a lab ran, one JSON line a check, the newest last. */
export const HISTORY_FILE = 'check-history.jsonl';
/** The tutor's explained runs (app/runs/file.ts). */
export const RUNS_FILE = 'runs.json';

/** Checks the checker keeps in a lab's own history file: a long teaching day is a few dozen; the oldest go first. */
export const HISTORY_LIMIT = 500;
/**
 * Checks kept in the host's copy of a lab's history, merged across the lab's volumes (make down and up again),
 * and read by the class tools: the newest.
 */
export const HISTORY_KEPT = 5000;
