/**
 * The pure part of the twins test (test/e2e/twins.ts): a scenario's final destination state made
 * comparable across two runs of the same workflow (n8n and the simulator), and the first difference.
 * Normalised away is only what differs between any two runs: times, the service's and the platform's
 * generated ids, resume URLs, durations, and the scenario's random names (its event id, approver, user).
 * Everything the workflow wrote stays: each case, notification and block entry, and the journal of the
 * requests it made, in order.
 */

/** A scenario's random names, each replaced by its placeholder wherever it appears. */
export type Placeholders = Readonly<Record<string, string>>;

/** The placeholders of a scenario: its event id, its random suffix, and its approver's and user's names. */
export function placeholdersOf(names: {
  eventId: string;
  approver?: string;
  user?: string;
  suffix?: string;
}): Placeholders {
  return {
    [names.eventId]: '<event_id>',
    ...(names.approver === undefined ? {} : { [names.approver]: '<approver>' }),
    ...(names.user === undefined ? {} : { [names.user]: '<user>' }),
    ...(names.suffix === undefined || names.suffix === '' ? {} : { [names.suffix]: '<suffix>' }),
  };
}

/** The random part of an event id the checker or the matrix made: its last eight hex digits. */
export function suffixOf(eventId: string): string {
  return /-([0-9a-f]{8})$/.exec(eventId)?.[1] ?? '';
}

const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})/g;
/** n8n's and the simulator's resume URLs: each names its own host, run id and signature. */
const RESUME_URL = /https?:\/\/[^\s"'<>]+\/webhook-waiting\/[^\s"'<>]*/g;
/** Keys whose value is a generated id or a duration, whatever the value looks like. */
const GENERATED = /^(id|execution_id|executionId|run_id|resume_url|resumeUrl|seq)$/;
const DURATION = /(^|_)(ms|seconds|duration|elapsed)$|_(ms|s)$|Ms$/;

/** `text` with the placeholders, resume URLs and times replaced. */
function normalText(text: string, placeholders: Placeholders): string {
  let out = text;
  // Longest first: an event id holds its suffix.
  for (const [from, to] of Object.entries(placeholders).sort((a, b) => b[0].length - a[0].length))
    out = out.split(from).join(to);
  return out.replace(RESUME_URL, '<resume_url>').replace(ISO_TIME, '<time>');
}

function normalValue(value: unknown, placeholders: Placeholders, key?: string): unknown {
  if (key !== undefined && value !== null && value !== undefined) {
    if (GENERATED.test(key)) return `<${key}>`;
    if (DURATION.test(key) && typeof value === 'number') return '<duration>';
  }
  if (typeof value === 'string') return normalText(value, placeholders);
  if (Array.isArray(value)) return value.map((v) => normalValue(v, placeholders));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, normalValue(v, placeholders, k)]),
    );
  return value;
}

/**
 * A final state (GET /state's answer) as the twins compare it: the service clock (`now`) left out, the
 * journal as `METHOD path status` lines, everything else normalised.
 */
export function normaliseState(
  state: Readonly<Record<string, unknown>>,
  placeholders: Placeholders,
): Record<string, unknown> {
  const { now: _now, journal, ...rest } = state;
  const lines = Array.isArray(journal)
    ? journal.map((j: unknown) =>
        isRecord(j)
          ? normalText(`${String(j.method)} ${String(j.path)} ${String(j.status)}`, placeholders)
          : normalValue(j, placeholders),
      )
    : normalValue(journal, placeholders);
  return {
    ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, normalValue(v, placeholders, k)])),
    journal: lines,
  };
}

export interface Difference {
  /** Where: `cases[0].approver`; '' for the whole value. */
  path: string;
  /** The value on each side; undefined: absent there. */
  left: unknown;
  right: unknown;
}

/** The first place where two normalised values differ, depth first in key order; null: the same. */
export function firstDifference(left: unknown, right: unknown, path = ''): Difference | null {
  if (Object.is(left, right)) return null;
  if (Array.isArray(left) && Array.isArray(right)) {
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const d = firstDifference(left[i], right[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return null;
  }
  if (isRecord(left) && isRecord(right)) {
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
    for (const k of keys) {
      const d = firstDifference(left[k], right[k], path === '' ? k : `${path}.${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  return { path, left, right };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a difference line shows it: JSON, cut at 100 characters; `(absent)` when there is none. */
export function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}

export interface TwinLine {
  scenario: string;
  difference: Difference | null;
}

/**
 * Scenario by scenario, in the left side's order then any the left side lacks: `same`, or the first
 * difference as `path: <left> vs <right>`; a scenario one side did not run differs as a whole.
 */
export function compareSides(
  left: ReadonlyMap<string, unknown>,
  right: ReadonlyMap<string, unknown>,
): TwinLine[] {
  const names = [...new Set([...left.keys(), ...right.keys()])];
  return names.map((scenario) => ({
    scenario,
    difference:
      left.has(scenario) && right.has(scenario)
        ? firstDifference(left.get(scenario), right.get(scenario))
        : {
            path: '(the scenario)',
            left: left.has(scenario) ? 'ran' : undefined,
            right: right.has(scenario) ? 'ran' : undefined,
          },
  }));
}

/** One line per scenario and a total line; `names` are the two sides' names (n8n, simulator). */
export function formatLines(lines: readonly TwinLine[], names: readonly [string, string]): string[] {
  const width = Math.max(0, ...lines.map((l) => l.scenario.length));
  const out = lines.map(({ scenario, difference: d }) =>
    d === null
      ? `${scenario.padEnd(width)}  same`
      : `${scenario.padEnd(width)}  DIFFERENT  ${d.path || '(the state)'}: ${names[0]} ${shown(d.left)} vs ${names[1]} ${shown(d.right)}`,
  );
  const differ = lines.filter((l) => l.difference !== null).length;
  out.push(
    `${lines.length} scenario(s): ${lines.length - differ} the same, ${differ} different (${names[0]} vs ${names[1]})`,
  );
  return out;
}

/**
 * The scenarios expected but not compared: each name of `expected` with no line at all (neither side ran
 * it). A twins run that compared nothing, or fewer than every scenario and case it was to run, proved
 * nothing about them: it fails. An empty `expected` is refused (a list that names nothing holds nothing).
 */
export function uncompared(lines: readonly TwinLine[], expected: readonly string[]): string[] {
  if (expected.length === 0)
    throw new Error('twins: no scenario is expected: the comparison would hold nothing');
  const compared = new Set(lines.map((l) => l.scenario));
  return expected.filter((name) => !compared.has(name));
}

/** The names the twins expect: `check <id>` for each scenario of the checker's stages, `matrix <case>`. */
export function expectedNames(scenarioIds: readonly string[], cases: readonly string[]): string[] {
  return [...scenarioIds.map((id) => `check ${id}`), ...cases.map((c) => `matrix ${c}`)];
}
