/**
 * What the class report reads: one JSON document that the host's shell collects from every lab (its name,
 * whether it runs, its URLs, and its last stage-check report as the lab's reports volume holds it).
 */
import { z } from 'zod';

export const LabInputSchema = z.object({
  name: z.string().min(1).max(64),
  up: z.boolean(),
  editor_url: z.string().nullable().default(null),
  console_url: z.string().nullable().default(null),
  /** check-last.json as written by the stage checker, or null when the lab was never checked. Read loosely
   * here and parsed per lab, so one unreadable report marks one row, not the whole class. */
  report: z.unknown().default(null),
});
export type LabInput = z.infer<typeof LabInputSchema>;

export const ClassInputSchema = z.object({
  generated_at: z.iso.datetime({ offset: true }),
  labs: z.array(LabInputSchema).max(500),
});
export type ClassInput = z.infer<typeof ClassInputSchema>;
