/** The identity directory's record schema (zod). */
import { z } from 'zod';

export const IdentitySchema = z
  .object({
    user: z.string(),
    role: z.string(),
    critical: z.boolean(),
    display_name: z.string(),
    department: z.string(),
    status: z.enum(['active', 'disabled']),
    mfa_enrolled: z.boolean(),
  })
  .meta({ id: 'Identity' });
export type Identity = z.infer<typeof IdentitySchema>;
