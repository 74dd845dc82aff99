/**
 * The class as the labs wrote it: each lab's reports folder (its `lab-reports` volume, mounted read-only at
 * <labs>/<name>: check-last.json, check-history.jsonl, the tutor's runs.json), the host's copies in
 * <saved>/<name> (kept by every `make check` and before every removal), and the host's states file (the
 * roster, each lab's state and URLs). The last report is the volume's, else the host's copy; the history is
 * both merged, so a lab that is gone, or came back with an empty volume, keeps every check it ran. The runs
 * are found as the last report is; a runs file missing or not the tutor's is no runs yet (null), never an
 * error that hides the lab. A file is read again only when its size, time or inode changed, so a board
 * polled by many tabs reads little.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { HISTORY_FILE } from '../check-report/history.js';
import { HISTORY_KEPT, LAB_NAME_PATTERN, REPORT_FILE } from '../lab-settings/names.js';
import { RUNS_FILE, type RunsFile, RunsFileSchema } from '../runs/file.js';
import { type ClassInput, type LabInput, StatesFileSchema } from './class-input.js';

export interface LabFoldersOptions {
  /** One folder per lab, named like the lab. */
  labs: string;
  /** The host's reports/ (report copies per lab), read when a lab's own folder has no report. */
  saved?: string | undefined;
  /** The host's states file; without it (or unreadable) every lab folder is listed, its state unknown. */
  states?: string | undefined;
}

const NAME = LAB_NAME_PATTERN;
const NO_LINES: readonly string[] = [];
const TimedLineSchema = z.object({ at: z.string() });

/** When a history line's check finished, or -Infinity for a line without a readable time (it goes
 * first: the model counts it unreadable wherever it is). */
function timeOf(line: string): number {
  try {
    const parsed = TimedLineSchema.safeParse(JSON.parse(line));
    const at = parsed.success ? Date.parse(parsed.data.at) : Number.NaN;
    return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

/** Histories of one lab merged: each line once (the host's copy holds byte copies of the volume's lines),
 * oldest first (a stable sort: lines of one instant keep their order), the newest HISTORY_KEPT. */
export function mergeHistories(...histories: readonly (readonly string[])[]): string[] {
  const seen = new Set<string>();
  const lines: { line: string; at: number }[] = [];
  for (const history of histories) {
    for (const raw of history) {
      const line = raw.trim();
      if (line === '' || seen.has(line)) continue;
      seen.add(line);
      lines.push({ line, at: timeOf(line) });
    }
  }
  lines.sort((a, b) => (a.at === b.at ? 0 : a.at < b.at ? -1 : 1));
  return lines.slice(-HISTORY_KEPT).map((l) => l.line);
}

type Read<T> = { found: true; value: T } | { found: false };

export class LabFolders {
  readonly #options: LabFoldersOptions;
  readonly #cache = new Map<string, { key: string; value: unknown }>();
  readonly #merged = new Map<string, { host: readonly string[]; own: readonly string[]; lines: string[] }>();

  constructor(options: LabFoldersOptions) {
    this.#options = options;
  }

  /** Reads `path` through `parse`, from the cache when the file has not changed; missing: not found. */
  async #read<T>(path: string, parse: (text: string) => T): Promise<Read<T>> {
    let key: string;
    try {
      const s = await stat(path);
      if (!s.isFile()) return { found: false };
      key = `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      this.#cache.delete(path);
      return { found: false };
    }
    const cached = this.#cache.get(path);
    // The cache holds what `parse` returned for this very path, and each path has one parser.
    if (cached?.key === key) return { found: true, value: cached.value as T };
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return { found: false };
    }
    const value = parse(text);
    this.#cache.set(path, { key, value });
    return { found: true, value };
  }

  /** The first of the lab's own folder and the host's copy that holds `file`. */
  async #labFile<T>(name: string, file: string, parse: (text: string) => T): Promise<Read<T>> {
    const own = await this.#read(join(this.#options.labs, name, file), parse);
    if (own.found || this.#options.saved === undefined) return own;
    return this.#read(join(this.#options.saved, name, file), parse);
  }

  /** The lab's history: the host's copy and the volume's lines merged. */
  async #history(name: string): Promise<string[]> {
    const split = (text: string): readonly string[] => text.split('\n');
    const own = await this.#read(join(this.#options.labs, name, HISTORY_FILE), split);
    const host =
      this.#options.saved === undefined
        ? ({ found: false } as const)
        : await this.#read(join(this.#options.saved, name, HISTORY_FILE), split);
    const hostLines = host.found ? host.value : NO_LINES;
    const ownLines = own.found ? own.value : NO_LINES;
    // The files' parsed lines are the cache's own arrays while the files do not change: so is the merge.
    const merged = this.#merged.get(name);
    if (merged?.host === hostLines && merged.own === ownLines) return merged.lines;
    const lines = mergeHistories(hostLines, ownLines);
    this.#merged.set(name, { host: hostLines, own: ownLines, lines });
    return lines;
  }

  /** The tutor's runs.json, parsed; null when there is none or it is not the tutor's (no runs yet). */
  async #runs(name: string): Promise<RunsFile | null> {
    const runs = await this.#labFile(name, RUNS_FILE, (text): RunsFile | null => {
      try {
        const parsed = RunsFileSchema.safeParse(JSON.parse(text));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    });
    return runs.found ? runs.value : null;
  }

  async #roster(): Promise<{
    states_at: string | null;
    labs: Omit<LabInput, 'report' | 'history' | 'runs'>[];
  }> {
    const path = this.#options.states;
    const states =
      path === undefined
        ? ({ found: false } as const)
        : await this.#read(path, (text) => {
            try {
              return StatesFileSchema.safeParse(JSON.parse(text));
            } catch {
              return null;
            }
          });
    if (states.found && states.value?.success) {
      const { at, labs } = states.value.data;
      return {
        states_at: at,
        labs: labs.map(({ detail, ...lab }) => ({ ...lab, state_detail: detail === '' ? null : detail })),
      };
    }
    const why = !states.found ? 'no lab states from the host' : 'the lab states file is unreadable';
    let names: string[] = [];
    try {
      names = (await readdir(this.#options.labs, { withFileTypes: true }))
        .filter((e) => e.isDirectory() && NAME.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch {
      names = [];
    }
    return {
      states_at: null,
      labs: names.map((name) => ({
        name,
        state: 'unknown',
        state_detail: why,
        editor_url: null,
        console_url: null,
      })),
    };
  }

  /** The class document the model reads (class-input.ts), as of `now`. */
  async classInput(now: Date = new Date()): Promise<ClassInput> {
    const roster = await this.#roster();
    const labs = await Promise.all(
      roster.labs.map(async (lab) => {
        const report = await this.#labFile(lab.name, REPORT_FILE, (text): unknown => {
          try {
            return JSON.parse(text);
          } catch {
            // Not JSON: the model marks the lab's report unreadable, the rest of the class stands.
            return { unreadable: text.slice(0, 80) };
          }
        });
        return {
          ...lab,
          report: report.found ? report.value : null,
          history: await this.#history(lab.name),
          runs: await this.#runs(lab.name),
        };
      }),
    );
    return { generated_at: now.toISOString(), states_at: roster.states_at, labs };
  }
}
