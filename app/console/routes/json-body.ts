/** A console route's JSON body, parsed by its schema before the handler runs (400 when it does not fit). */
import { validator } from 'hono/validator';
import type { z } from 'zod';
import { refuse } from '../../service-kit/browser-guard.js';

/**
 * The route's JSON body, parsed by its schema before the handler runs: one that does not fit is a 400
 * naming its first issue. A body that is not JSON at all makes Hono's validator throw, answered in onError.
 */
export const jsonBody = <T>(schema: z.ZodType<T>) =>
  validator('json', (value, c): T | Response => {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    return refuse(
      c,
      400,
      'bad_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  });
