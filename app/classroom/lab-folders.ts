/**
 * The class as the labs wrote it: each lab's reports folder (its `lab-reports` volume, mounted read-only at
 * <labs>/<name>: check-last.json, check-history.jsonl), the host's copies in <saved>/<name> for a lab whose
 * volume is gone, and the host's states file (the roster, each lab's state and URLs). A file is read again
 * only when its size, time or inode changed, so a board polled by many tabs reads little.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { HISTORY_FILE } from '../harness/check-history.js';
import { type ClassInput, type LabInput, StatesFileSchema } from './class-input.js';

export interface LabFoldersOptions {
  /** One folder per lab, named like the lab. */
  labs: string;
  /** The host's reports/ (report copies per lab), read when a lab's own folder has no report. */
  saved?: string | undefined;
  /** The host's states file; without it (or unreadable) every lab folder is listed, its state unknown. */
  states?: string | undefined;
}

const REPORT_FILE = 'check-last.json';
const NAME = /^[a-z]([a-z0-9-]{0,30}[a-z0-9])?$/;

type Read<T> = { found: true; value: T } | { found: false };

export class LabFolders {
  readonly #options: LabFoldersOptions;
  readonly #cache = new Map<string, { key: string; value: unknown }>();

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

  async #roster(): Promise<{ states_at: string | null; labs: Omit<LabInput, 'report' | 'history'>[] }> {
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
        const history = await this.#labFile(lab.name, HISTORY_FILE, (text) =>
          text.split('\n').filter((l) => l.trim() !== ''),
        );
        return {
          ...lab,
          report: report.found ? report.value : null,
          history: history.found ? history.value.slice(-5000) : [],
        };
      }),
    );
    return { generated_at: now.toISOString(), states_at: roster.states_at, labs };
  }
}
