/** The health answer's schema (zod). */
import { z } from 'zod';
import { CaseModeSchema } from './control.js';

export const HealthSchema = z
  .object({
    status: z.literal('ok'),
    case_mode: CaseModeSchema,
    uptime_s: z.number().int().nonnegative(),
    counts: z.object({
      cases: z.number().int().nonnegative(),
      notifications: z.number().int().nonnegative(),
      blocklist: z.number().int().nonnegative(),
    }),
    limits: z.object({ cases: z.number().int(), notifications: z.number().int() }),
    version: z.string(),
  })
  .meta({ id: 'Health' });
export type Health = z.infer<typeof HealthSchema>;
