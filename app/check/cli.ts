#!/usr/bin/env node
/**
 * Entry of the stage checker: argv in, exit code out (0 every judged stage passed, 1 a stage failed, 2 usage,
 * setup, or nothing listening on a webhook path, said in one line).
 */
import { guardN8nConnections, parseSubnet, refusalOf } from '../n8n/subnet-guard.js';
import { SetupError } from '../targets/session.js';
import { runTool } from '../tool-kit/run-tool.js';
import { CHECK_USAGE, parseCheckOptions } from './options.js';
import { runCheck } from './run-check.js';

process.exitCode = await runTool({
  name: 'check',
  usage: CHECK_USAGE,
  parse: parseCheckOptions,
  run: async (options, output) => {
    // Started by the console, whose network is not internal: n8n only at an address on its own network.
    // A refused address is the host's failing, not the workflow's: stopped in one line, judging nothing.
    const subnet = process.env.N8N_ALLOWED_SUBNET;
    const lookup = guardN8nConnections(options.n8nUrl, subnet ? parseSubnet(subnet) : null);
    const refused = lookup && (await refusalOf(options.n8nUrl, lookup));
    if (refused) throw new SetupError(refused.message);
    const report = await runCheck(options, output);
    return report.stopped !== null ? 2 : report.passed ? 0 : 1;
  },
  errorLine: (error) => `${error instanceof SetupError ? '' : 'error: '}${(error as Error).message ?? error}`,
});
