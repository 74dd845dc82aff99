#!/usr/bin/env node
/**
 * Entry of the acceptance runner and of the stage checker (`check`): argv in, exit code out (0 all passed,
 * 1 a case or stage failed, 2 usage or setup).
 */
import { withKeyFile } from '../lab/key-file.js';
import { CheckSetupError } from './check/driver.js';
import { CHECK_USAGE, parseCheckOptions } from './check/options.js';
import { runCheck } from './check/run-check.js';
import { parseOptions, USAGE, UsageError } from './options.js';
import { runAcceptance } from './run-acceptance.js';

const output = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};

async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv[0] === 'check') return check(argv.slice(1), env);
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
    const report = await runAcceptance(options, output);
    return report.passed ? 0 : 1;
  } catch (error) {
    process.stderr.write(`acceptance: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

async function check(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
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
    const report = await runCheck(options, output);
    // Nothing listens on a webhook path: a setup problem, said in one line.
    return report.stopped !== null ? 2 : report.passed ? 0 : 1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`check: ${error instanceof CheckSetupError ? '' : 'error: '}${message}\n`);
    return 2;
  }
}

/** The environment, with the key for n8n's API from N8N_API_KEY_FILE (the Kubernetes lab) when given so. */
function environment(): NodeJS.ProcessEnv | undefined {
  try {
    return withKeyFile(process.env);
  } catch (error) {
    process.stderr.write(
      `${process.argv[2] === 'check' ? 'check' : 'acceptance'}: ${(error as Error).message}\n`,
    );
    return undefined;
  }
}
const env = environment();
process.exitCode = env === undefined ? 2 : await main(process.argv.slice(2), env);
