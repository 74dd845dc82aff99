/**
 * A lab's settings, declared once: each one's environment variable, default, rule and the words a bad value
 * gets. TypeScript reads them through ./rules.ts; the host scripts source docker/lab/settings.generated.sh,
 * written from here by ./generate-cli.ts; compose.yaml's `${NAME:-default}`, the Kubernetes base's literals and
 * the docs' settings tables are held equal to these by test/lab-settings/copies.test.ts. Dependency-free.
 */

/** What every setting says about itself; a bad value is told `NAME=value <message>[: <account>]`. */
interface SettingBase {
  /** The environment variable (and the `make` variable) that sets it. */
  name: string;
  /** One line for a trainer: what it decides. */
  about: string;
  /** The words after `NAME=value ` when a value breaks the rule. */
  message: string;
  /** The allowed values in words, after a colon; a host script may give a fuller account in its place. */
  account?: string;
  /** The shell function (docker/lab/settings.generated.sh) that checks a value: `check VALUE [MORE]`. */
  shellCheck: string;
}

/** A whole number of 1 to 9 digits from min to max: the shell's `in_range`, TypeScript's and n8n's. */
export interface WholeSetting extends SettingBase {
  rule: 'whole';
  default: number;
  min: number;
  max: number;
}

/** One of a few words, exactly. */
export interface WordSetting<Word extends string = string> extends SettingBase {
  rule: 'word';
  default: Word;
  words: readonly [Word, ...Word[]];
}

/**
 * A number of processor cores as Docker's `--cpus` takes it: 0 to max, at most two decimals (`1`, `0.5`,
 * `1.25`); 0 is no limit.
 */
export interface CoresSetting extends SettingBase {
  rule: 'cores';
  default: number;
  max: number;
}

export type LabSetting = WholeSetting | WordSetting | CoresSetting;

/** The digits a whole-number setting may have: at most nine, as the shell's arithmetic takes them. */
export const WHOLE_PATTERN = /^[0-9]{1,9}$/;

/** A number of cores: one or two digits, then at most two decimals. */
export const CORES_PATTERN = /^[0-9]{1,2}(\.[0-9]{1,2})?$/;

export const LAB_MODE = {
  name: 'LAB_MODE',
  about: 'exercise: nothing published, the trainee builds; demo: the reference workflows published',
  rule: 'word',
  default: 'exercise',
  words: ['exercise', 'demo'],
  message: 'is not a lab mode',
  account: 'exercise or demo',
  shellCheck: 'check_lab_mode',
} as const satisfies WordSetting;

const APPROVAL_MIN = 1;
const APPROVAL_MAX = 3600;

/**
 * 60 s: n8n schedules a Wait of 60 s or more to the second, while a shorter one resumes only at its next
 * once-a-minute poll; 60 is the shortest default that fires on time (docs/decisions.md).
 */
export const APPROVAL_TIMEOUT_SECONDS = {
  name: 'APPROVAL_TIMEOUT_SECONDS',
  about: 'how long a run waits for an approval decision, in seconds, before it goes on without one',
  rule: 'whole',
  default: 60,
  min: APPROVAL_MIN,
  max: APPROVAL_MAX,
  message: `is not a whole number of seconds from ${APPROVAL_MIN} to ${APPROVAL_MAX}`,
  shellCheck: 'check_approval_timeout',
} as const satisfies WholeSetting;

/** The approval limit's default, as the workflow's constants name it. */
export const DEFAULT_APPROVAL_TIMEOUT_SECONDS = APPROVAL_TIMEOUT_SECONDS.default;

export const LAB_STARTERS = {
  name: 'LAB_STARTERS',
  about: 'on: a trainee may add a starter (make starter, the console); off: refused',
  rule: 'word',
  default: 'on',
  words: ['on', 'off'],
  message: 'is not on or off',
  shellCheck: 'check_lab_starters',
} as const satisfies WordSetting;

const CORES_MAX = 64;

/**
 * The processor n8n may use, in cores: the trainee's workflow runs there, so one trainee's runaway
 * workflow takes at most this from the other labs of the host (docs/appliance.md,
 * "Processor limits", the measurement behind the default).
 */
export const LAB_CPUS = {
  name: 'LAB_CPUS',
  about: 'the processor cores n8n may use (0: no limit)',
  rule: 'cores',
  default: 1,
  max: CORES_MAX,
  message: `is not a number of cores from 0 to ${CORES_MAX} with at most two decimals (0: no limit)`,
  shellCheck: 'check_lab_cpus',
} as const satisfies CoresSetting;

/** Every lab setting, in the order the generated shell file lists them. */
export const LAB_SETTINGS: readonly LabSetting[] = [
  LAB_MODE,
  APPROVAL_TIMEOUT_SECONDS,
  LAB_STARTERS,
  LAB_CPUS,
];

/**
 * The appliance's version, declared here and nowhere else (CHANGELOG.md's newest entry, package.json and
 * every image tag are held equal to it by test/lab-settings/copies.test.ts). What each part means to a
 * trainer who updates (docker/lab/update.sh, CHANGELOG.md): MAJOR, the lab's layout (its services,
 * volumes, networks or database): `make up` moves a lab of another major (saved, recreated, restored);
 * MINOR, what runs in a lab (the lab's image, a pinned image): `make up` recreates the changed containers
 * of an older lab in place, its volumes kept; PATCH, nothing a lab runs (host commands, docs).
 */
export const LAB_VERSION = '1.2.0';

/** The lab's own image: the mock API, the console, the tools and the class board run it. */
export const LAB_IMAGE = `soar-lab/mock-api:${LAB_VERSION}`;
/** The lab's walls (the Dockerfile's walls stage), tagged with the same version. */
export const WALLS_IMAGE = `soar-lab/walls:${LAB_VERSION}`;
