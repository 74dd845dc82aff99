#!/usr/bin/env node
/** Entry of the acceptance matrix: argv in, exit code out (0 all passed, 1 a case failed, 2 usage or setup). */
import { terminal, toolEnvironment } from '../lab/tool-main.js';
import { UsageError } from '../targets/options.js';
import { parseOptions, USAGE } from './options.js';
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
  try {
    const report = await runAcceptance(options, terminal);
    return report.passed ? 0 : 1;
  } catch (error) {
    process.stderr.write(`acceptance: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

const env = toolEnvironment('acceptance');
process.exitCode = env === undefined ? 2 : await main(process.argv.slice(2), env);
