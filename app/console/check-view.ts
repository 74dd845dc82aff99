/**
 * What the Check control shows, shared by the console (app/console/check-run.ts) and its page script
 * (app/console/client/): the stages it offers, the run's state as the event stream sends it, and each
 * stage's brief and starter (GET /api/stages).
 */
import { z } from 'zod';
import { StageNameSchema } from '../check-report/report.js';
import type { StageBrief } from '../stages/briefs.js';
import { STAGE_NAMES, type StageName } from '../stages/stages.js';

export const CHECK_STAGES = [...STAGE_NAMES, 'all'] as const;
export const CheckStageSchema = z.union([StageNameSchema, z.literal('all')], {
  error: `stage must be one of ${CHECK_STAGES.join(', ')}`,
});
export type CheckStage = z.infer<typeof CheckStageSchema>;

export interface CheckRunView {
  /** null when the control can be used; otherwise why not, in one line. */
  unavailable: string | null;
  stages: readonly CheckStage[];
  running: boolean;
  stage: CheckStage | null;
  /** The stage was checked on its own (`--only`), not with the stages before it. */
  only: boolean;
  pid: number | null;
  started_at: string | null;
  finished_at: string | null;
  /** The exit code, or the signal's name; null while running or before the first run. */
  exit: string | null;
  /** Why the run ended early (time limit, console stopping), or null. */
  stopped: string | null;
  /** The number of lines the run printed (those before `lines` were dropped). */
  line_count: number;
  lines: string[];
}

/** A line the checker printed, numbered from 1 within its run. */
export interface CheckLine {
  n: number;
  text: string;
}

export type CheckEvent = { kind: 'run'; view: CheckRunView } | ({ kind: 'line' } & CheckLine);

/** GET /api/stages: what each stage must do (app/stages/briefs.ts), and the Add a starter control. */
export interface StagesView {
  briefs: StageBrief[];
  starter: {
    /** false when the lab's LAB_STARTERS is off: the control is not on the page and POSTs are refused. */
    shown: boolean;
    /** null when it can be used; otherwise why not, in one line. */
    unavailable: string | null;
    /** The stages a starter is for, each with the starter's name. */
    stages: { stage: StageName; name: string }[];
  };
}
