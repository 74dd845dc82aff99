/**
 * What the checker expects, one file per stage (expectations/<stage>.ts), each expectation with the hint a
 * failure gives in the trainee's terms. Every judgement reads the mock API's destination state (GET
 * /state: cases, notifications, blocklist, history, journal) and, for the Webhook stage only, n8n's
 * execution data. The stimuli that exercise them are in scenarios.ts.
 */

export * from './expectations/approve.js';
export * from './expectations/block.js';
export * from './expectations/case-lookup.js';
export * from './expectations/connector-failure.js';
export * from './expectations/decide.js';
export * from './expectations/enrich.js';
export * from './expectations/idempotency.js';
export * from './expectations/kit.js';
export * from './expectations/record.js';
export * from './expectations/rollback.js';
export * from './expectations/webhook.js';
