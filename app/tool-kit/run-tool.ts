/**
 * The entry of a lab tool (the acceptance matrix, the stage checker), written once: the environment (with
 * the key for n8n's API read from N8N_API_KEY_FILE, the Kubernetes lab, when given so), the command line,
 * the run, and the exit code: 0 passed, 1 failed, 2 usage or setup, each problem in one line.
 */
import { watchRequests } from './in-flight.js';
import { withKeyFile } from './key-file.js';
import type { Output } from './output.js';

/** A bad flag or value: one line, then the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Tool<O> {
  /** Prefixes every line the entry writes: `check: ...`. */
  name: string;
  usage: string;
  /** The options, or null for --help; throws UsageError. */
  parse(argv: readonly string[], env: Record<string, string | undefined>): O | null;
  /** The exit code of a run that ended. */
  run(options: O, output: Output): Promise<number>;
  /** The line for an error the run threw (default: its message). */
  errorLine?(error: unknown): string;
}

const terminal: Output = {
  out: (line: string) => process.stdout.write(`${line}\n`),
  err: (line: string) => process.stderr.write(`${line}\n`),
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function runTool<O>(tool: Tool<O>): Promise<number> {
  const fail = (line: string) => {
    process.stderr.write(`${tool.name}: ${line}\n`);
    return 2;
  };
  let env: NodeJS.ProcessEnv;
  try {
    env = withKeyFile(process.env);
  } catch (error) {
    return fail(messageOf(error));
  }
  let options: O | null;
  try {
    options = tool.parse(process.argv.slice(2), env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return fail(`${error.message}\n${tool.usage}`);
  }
  if (options === null) {
    process.stdout.write(`${tool.usage}\n`);
    return 0;
  }
  // A run whose awaited answer never comes while nothing else is pending would end the process with
  // Node's bare exit code 13 and no word (seen with a class of 16 checking at once): say so instead.
  // The line names the requests still unanswered then (their connection no longer kept the process alive).
  const requests = watchRequests();
  const unsettled = () => {
    process.exitCode = fail(unsettledLine(requests.pending()));
  };
  process.once('exit', unsettled);
  try {
    return await tool.run(options, terminal);
  } catch (error) {
    return fail(tool.errorLine?.(error) ?? messageOf(error));
  } finally {
    process.off('exit', unsettled);
    requests.stop();
  }
}

/** The line for a run that ended with nothing left to wait on and no result. */
export const UNSETTLED =
  'stopped before it could judge: an answer from n8n or the mock API never came (the host is busy?): nothing was judged, run it again';

export const unsettledLine = (pending: readonly string[]) =>
  `${UNSETTLED} (${pending.length === 0 ? 'no request was in flight' : `no answer to ${pending.join(', ')}`})`;
