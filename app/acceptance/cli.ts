#!/usr/bin/env node
/** Entry of the acceptance matrix: argv in, exit code out (0 all passed, 1 a case failed, 2 usage or setup). */
import { runTool } from '../tool-kit/run-tool.js';
import { parseOptions, USAGE } from './options.js';
import { runAcceptance } from './run-acceptance.js';

process.exitCode = await runTool({
  name: 'acceptance',
  usage: USAGE,
  parse: parseOptions,
  run: async (options, output) => ((await runAcceptance(options, output)).passed ? 0 : 1),
});
