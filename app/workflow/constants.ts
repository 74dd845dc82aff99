/**
 * The workflow's constants, declared once. The guide's workflow (its nodes' parameters), the checker's
 * expectations, the acceptance verdicts and the mock API's event_id schema read them from here.
 * Dependency-free (the lab setting below is a re-export).
 */

/** Decide: a confidence at or above this asks for approval; below it nothing is contained. */
export const APPROVAL_THRESHOLD = 80;
/** Block: how long the source address stays on the blocklist. */
export const BLOCK_EXPIRES_MINUTES = 10;
/** Record's resume after a connector failure: GET /health at most this many times... */
export const HEALTH_POLL_TRIES = 30;
/** ...this many seconds apart. */
export const HEALTH_POLL_INTERVAL_SECONDS = 2;
/**
 * The approval time limit when APPROVAL_TIMEOUT_SECONDS is not set: the lab setting's default. A re-export
 * (no Code node draws on it: the generator leaves re-exports out of their code).
 */
export { DEFAULT_APPROVAL_TIMEOUT_SECONDS } from '../lab-settings/settings.js';
/** The mock API's address when MOCK_API_URL is not set (the lab's loopback default). */
export const DEFAULT_MOCK_API_URL = 'http://127.0.0.1:8081';
/** The lab's one blockable source address: the alerts' source_ip, the only address POST /blocklist takes. */
export const LAB_ADDRESS = '203.0.113.66';
/** The case store keys cases by event_id of 1 to this many characters: a longer one is refused. */
export const EVENT_ID_MAX_LENGTH = 128;

/** The alert webhook's path: production alerts arrive at `<n8n>/webhook/<this>` once the workflow is published. */
export const RESPONSE_WEBHOOK_PATH = 'suspicious-login';
/** The rollback trigger's path (the second workflow). */
export const ROLLBACK_WEBHOOK_PATH = 'suspicious-login-rollback';

export const RESPONSE_WORKFLOW = 'Suspicious Login Response';
export const ROLLBACK_WORKFLOW = 'Suspicious Login Rollback';
