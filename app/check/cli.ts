#!/usr/bin/env node
/**
 * Entry of the stage checker: argv in, exit code out (0 every judged stage passed, 1 a stage failed, 2 usage,
 * setup, or nothing listening on a webhook path).
 */
import { terminal, toolEnvironment } from '../lab/tool-main.js';
import { UsageError } from '../targets/options.js';
import { CheckSetupError } from './driver.js';
import { CHECK_USAGE, parseCheckOptions } from './options.js';
import { runCheck } from './run-check.js';

async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  let options: ReturnType<typeof parseCheckOptions>;
  try {
    options = parseCheckOptions(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`check: ${error.message}\n${CHECK_USAGE}\n`);
    return 2;
  }
  if (options === null) {
    process.stdout.write(`${CHECK_USAGE}\n`);
    return 0;
  }
  try {
    const report = await runCheck(options, terminal);
    // Nothing listens on a webhook path: a setup problem, said in one line.
    return report.stopped !== null ? 2 : report.passed ? 0 : 1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`check: ${error instanceof CheckSetupError ? '' : 'error: '}${message}\n`);
    return 2;
  }
}

const env = toolEnvironment('check');
process.exitCode = env === undefined ? 2 : await main(process.argv.slice(2), env);
