/**
 * Step 1 of the workflow's decisions (docs/workflow-protocol.md): the alert's seven mapped fields and
 * their validation, with the small value checks the later steps use too. Written under the same rules as
 * ./decisions.ts, whose text the generator copies into the n8n Code nodes (app/workflow/n8n/js-source.ts
 * lists this file before it, so the nodes' code keeps its order).
 */
import { EVENT_ID_MAX_LENGTH } from './constants.js';

/** The seven mapped fields of the alert, as the webhook delivered them. */
export interface MappedAlert {
  event_id: string;
  event_type: string;
  user: string;
  source_ip: string;
  confidence: number;
  environment: string;
  successful_login: boolean;
}

/** What Validate hands on: the n8n Validate node's output item, and the reference's validation. */
export type AlertValidation =
  | { valid: true; errors: string[]; event_id: string; alert: MappedAlert; failed_attempts: number | null }
  | {
      valid: false;
      errors: string[];
      event_id: string | null;
      alert: Record<string, unknown>;
      failed_attempts: number | null;
    };

export type Json = Record<string, unknown>;

export function isJsonObject(x: unknown): x is Json {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/** A non-empty string once blanks are trimmed: a name of spaces names nobody. */
export function isNonBlank(x: unknown): x is string {
  return typeof x === 'string' && x.trim() !== '';
}

export function isIPv4(s: string): boolean {
  const octet = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
  return new RegExp(`^${octet}(\\.${octet}){3}$`).test(s);
}

/** IPv6 in any RFC 4291 text form (with an embedded IPv4 tail too); no zone index. */
export function isIPv6(s: string): boolean {
  if (!s.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(s)) return false;
  let text = s;
  const last = s.slice(s.lastIndexOf(':') + 1);
  if (last.includes('.')) {
    if (!isIPv4(last)) return false;
    text = `${s.slice(0, s.lastIndexOf(':') + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const all = groups(halves[0] ?? '').concat(halves.length === 2 ? groups(halves[1] ?? '') : []);
  if (!all.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? all.length <= 7 : all.length === 8;
}

export function isIpAddress(x: unknown): x is string {
  return typeof x === 'string' && (isIPv4(x) || isIPv6(x));
}

/**
 * Step 1: map the seven fields and validate them. An absent, null or empty field "is required"; any other
 * wrong value "must be ..."; a payload that is not an object gives the one error of its own.
 */
export function validateAlert(raw: unknown): AlertValidation {
  const isObject = isJsonObject(raw);
  const v: Json = isObject ? raw : {};
  const errors: string[] = [];
  if (!isObject) errors.push('the alert must be a JSON object');
  const rules: [keyof MappedAlert, (x: unknown) => boolean, string][] = [
    [
      'event_id',
      (x) => isNonBlank(x) && x.length <= EVENT_ID_MAX_LENGTH,
      `must be a non-empty string of at most ${EVENT_ID_MAX_LENGTH} characters`,
    ],
    ['event_type', isNonBlank, 'must be a non-empty string'],
    ['user', isNonBlank, 'must be a non-empty string'],
    ['source_ip', isIpAddress, 'must be an IP address'],
    [
      'confidence',
      (x) => Number.isInteger(x) && Number(x) >= 0 && Number(x) <= 100,
      'must be an integer from 0 to 100',
    ],
    ['environment', (x) => x === 'training', 'must be "training"'],
    ['successful_login', (x) => typeof x === 'boolean', 'must be a boolean'],
  ];
  for (const [field, ok, message] of isObject ? rules : []) {
    const x = v[field];
    if (x === undefined || x === null || x === '') errors.push(`${field} is required`);
    else if (!ok(x)) errors.push(`${field} ${message}`);
  }
  const alert = {
    event_id: v.event_id,
    event_type: v.event_type,
    user: v.user,
    source_ip: v.source_ip,
    confidence: v.confidence,
    environment: v.environment,
    successful_login: v.successful_login,
  };
  const attempts = v.failed_attempts;
  return {
    valid: errors.length === 0,
    errors,
    event_id: typeof v.event_id === 'string' ? v.event_id : null,
    alert,
    // evidence, not a condition of the run: kept when it is a count, otherwise null
    failed_attempts: Number.isInteger(attempts) && Number(attempts) >= 0 ? Number(attempts) : null,
  } as AlertValidation;
}
