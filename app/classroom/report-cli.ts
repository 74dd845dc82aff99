#!/usr/bin/env node
/**
 * `node dist/app/classroom/report-cli.js --format html|json|csv`: the class document on stdin
 * (class-input.ts), the report on stdout. Exit 2 with one line on a bad option or a bad document.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ClassInputSchema } from './class-input.js';
import { buildClassReport } from './class-report.js';
import { renderCsv } from './render-csv.js';
import { renderHtml } from './render-html.js';

const USAGE = 'usage: node dist/app/classroom/report-cli.js --format html|json|csv < class.json';
const FormatSchema = z.enum(['html', 'json', 'csv']);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv: string[]): Promise<number> {
  let format: z.infer<typeof FormatSchema>;
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      options: { format: { type: 'string', default: 'html' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help === true) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const parsed = FormatSchema.safeParse(values.format);
    if (!parsed.success)
      throw new Error(`--format must be html, json or csv, not ${JSON.stringify(values.format)}`);
    format = parsed.data;
  } catch (error) {
    process.stderr.write(
      `class-report: ${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`,
    );
    return 2;
  }
  let json: unknown;
  try {
    json = JSON.parse(await readStdin());
  } catch (error) {
    process.stderr.write(
      `class-report: stdin is not JSON (${error instanceof Error ? error.message : error})\n`,
    );
    return 2;
  }
  const input = ClassInputSchema.safeParse(json);
  if (!input.success) {
    const issue = input.error.issues[0];
    process.stderr.write(
      `class-report: stdin is not a class document: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}\n`,
    );
    return 2;
  }
  const report = buildClassReport(input.data);
  const out =
    format === 'json'
      ? `${JSON.stringify(report, null, 2)}\n`
      : format === 'csv'
        ? renderCsv(report)
        : String(await renderHtml(report));
  process.stdout.write(out);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
