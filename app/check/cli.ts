#!/usr/bin/env node
import { SetupError } from '../targets/session.js';
/**
 * Entry of the stage checker: argv in, exit code out (0 every judged stage passed, 1 a stage failed, 2 usage,
 * setup, or nothing listening on a webhook path, said in one line).
 */
import { runTool } from '../tool-kit/run-tool.js';
import { CHECK_USAGE, parseCheckOptions } from './options.js';
import { runCheck } from './run-check.js';

process.exitCode = await runTool({
  name: 'check',
  usage: CHECK_USAGE,
  parse: parseCheckOptions,
  run: async (options, output) => {
    const report = await runCheck(options, output);
    return report.stopped !== null ? 2 : report.passed ? 0 : 1;
  },
  errorLine: (error) => `${error instanceof SetupError ? '' : 'error: '}${(error as Error).message ?? error}`,
});
