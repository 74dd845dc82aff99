#!/usr/bin/env node
/** Entry of the acceptance runner: argv in, exit code out (0 all passed, 1 a case failed, 2 usage or setup). */
import { parseOptions, USAGE, UsageError } from './options.js';
import { runAcceptance } from './run-acceptance.js';

async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`acceptance: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const output = {
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
  };
  try {
    const report = await runAcceptance(options, output);
    return report.passed ? 0 : 1;
  } catch (error) {
    process.stderr.write(`acceptance: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2), process.env);
