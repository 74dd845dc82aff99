/**
 * What the console's "Your runs" panel draws: the tutor's explanations, newest first, and what keeps the
 * tutor from explaining, if anything. Types only, so the page's script (app/console/client/) reads the very
 * declaration the server sends.
 */
import { EXPLAINED_KEPT } from '../runs/file.js';
import type { Explanation } from './explanation.js';

export interface TutorView {
  /** Bumped at each change; the page draws each version once. */
  version: number;
  /**
   * The tutor's own trouble in one line (n8n or the mock API not answering, the runs file not written): a
   * state of the tutor, never a verdict on the trainee's workflow. Null when nothing keeps it.
   */
  trouble: string | null;
  /** Newest first, at most TUTOR_RUNS_SHOWN; a waiting run is replaced once it has ended. */
  runs: Explanation[];
}

/** How many explained runs the panel keeps: as many as the tutor's file keeps whole. */
export const TUTOR_RUNS_SHOWN = EXPLAINED_KEPT;
