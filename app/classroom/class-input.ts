/**
 * What the class report and the class board read, per lab: its name, its state (from the host's
 * `docker ps`), its URLs, its last stage-check report, its check history and the tutor's file of its runs,
 * as the lab's reports volume and the host's copies hold them (every check once, whether the lab is up,
 * gone or up again with an empty volume). Two ways in, one shape: a JSON document on stdin (report-cli), or
 * the labs' folders and the host's states file (lab-folders.ts: the board, and report-cli --labs).
 */
import { z } from 'zod';
import { HISTORY_KEPT, LAB_NAME_PATTERN } from '../lab-settings/names.js';

/** running: all six services up and healthy; stopped: all six stopped; broken: some missing, unhealthy or
 * exited; absent: no container. unknown: the host's states file was missing or unreadable. */
export const LAB_STATES = ['running', 'stopped', 'broken', 'absent', 'unknown'] as const;
export const LabStateSchema = z.enum(LAB_STATES);
export type LabState = z.infer<typeof LabStateSchema>;

export const LabInputSchema = z
  .object({
    name: z.string().min(1).max(64),
    state: LabStateSchema.optional(),
    /** What made the state broken, e.g. "n8n exited" (from the host). */
    state_detail: z.string().max(300).nullable().default(null),
    /** The first shape of this document: whether any container ran. Read as running or stopped. */
    up: z.boolean().optional(),
    editor_url: z.string().nullable().default(null),
    console_url: z.string().nullable().default(null),
    /** check-last.json as written by the stage checker, or null when the lab was never checked. Read loosely
     * here and parsed per lab, so one unreadable report marks one row, not the whole class. */
    report: z.unknown().default(null),
    /** check-history.jsonl's lines, oldest first (each parsed per line: a bad one is counted, not fatal). */
    history: z.array(z.unknown()).max(HISTORY_KEPT).default([]),
    /** The tutor's runs.json (app/runs/file.ts), or null when the lab has none yet. Read loosely here
     * and parsed per lab: a file that is not the tutor's is no runs yet, never an error. */
    runs: z.unknown().default(null),
  })
  .refine((lab) => lab.state !== undefined || lab.up !== undefined, {
    message: 'a lab needs its state (or up)',
    path: ['state'],
  })
  .transform(({ up, state, ...lab }) => ({ ...lab, state: state ?? (up === true ? 'running' : 'stopped') }));
export type LabInput = z.infer<typeof LabInputSchema>;

export const ClassInputSchema = z.object({
  generated_at: z.iso.datetime({ offset: true }),
  /** When the host last wrote the labs' states (the board's loop); null when there is no such file. */
  states_at: z.iso.datetime({ offset: true }).nullable().default(null),
  labs: z.array(LabInputSchema).max(500),
});
export type ClassInput = z.input<typeof ClassInputSchema>;
export type ParsedClassInput = z.output<typeof ClassInputSchema>;

/** The file docker/lab/board.sh rewrites every 2 s (temp file + mv): the roster, each lab's state, URLs. */
export const StatesFileSchema = z.object({
  at: z.iso.datetime({ offset: true }),
  labs: z
    .array(
      z.object({
        name: z.string().regex(LAB_NAME_PATTERN),
        state: LabStateSchema.exclude(['unknown']),
        detail: z.string().max(300).default(''),
        editor_url: z.string().nullable().default(null),
        console_url: z.string().nullable().default(null),
      }),
    )
    .max(500),
});
export type StatesFile = z.infer<typeof StatesFileSchema>;
