#!/usr/bin/env node
/**
 * `node dist/app/classroom/report-cli.js --format html|json|csv|history-csv`: the class report on stdout,
 * from the labs' folders as the class board reads them (`--labs DIR [--saved DIR] [--states FILE]`), or
 * from a class document on stdin (class-input.ts). Exit 2 with one line on a bad option or a bad document.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ClassInputSchema } from './class-input.js';
import { buildClassReport } from './class-report.js';
import { LabFolders } from './lab-folders.js';
import { renderCsv, renderHistoryCsv } from './render-csv.js';
import { renderHtml } from './render-html.js';

const USAGE = `usage: node dist/app/classroom/report-cli.js --format html|json|csv|history-csv
         (--labs DIR [--saved DIR] [--states FILE] | < class.json)`;
const FormatSchema = z.enum(['html', 'json', 'csv', 'history-csv']);

class Refusal extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function fromStdin(): Promise<unknown> {
  try {
    return JSON.parse(await readStdin());
  } catch (error) {
    throw new Refusal(`stdin is not JSON (${error instanceof Error ? error.message : error})`);
  }
}

function options(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      format: { type: 'string', default: 'html' },
      labs: { type: 'string' },
      saved: { type: 'string' },
      states: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const format = FormatSchema.safeParse(values.format);
  if (!format.success)
    throw new Refusal(
      `--format must be html, json, csv or history-csv, not ${JSON.stringify(values.format)}`,
    );
  if (values.labs === undefined && (values.saved !== undefined || values.states !== undefined))
    throw new Refusal('--saved and --states go with --labs');
  return { ...values, format: format.data };
}

async function main(argv: string[]): Promise<number> {
  try {
    const given = options(argv);
    if (given.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const json =
      given.labs === undefined
        ? await fromStdin()
        : await new LabFolders({ labs: given.labs, saved: given.saved, states: given.states }).classInput();
    const input = ClassInputSchema.safeParse(json);
    if (!input.success) {
      const issue = input.error.issues[0];
      throw new Refusal(
        `${given.labs === undefined ? 'stdin' : given.labs} is not a class document: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`,
      );
    }
    const report = buildClassReport(input.data);
    const out = {
      json: () => `${JSON.stringify(report, null, 2)}\n`,
      csv: () => renderCsv(report),
      'history-csv': () => renderHistoryCsv(report),
      html: async () => String(await renderHtml(report)),
    }[given.format];
    process.stdout.write(await out());
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`class-report: ${message}\n${error instanceof Refusal ? '' : `${USAGE}\n`}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
