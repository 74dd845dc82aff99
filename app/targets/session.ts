/**
 * What a run of either tool opens before it drives anything, and closes after it: the way to the mock API
 * (an in-process one, a URL, the socket, a command) and the workflow target (the reference host or n8n).
 */
import type { MockApiClient } from '../mock-api-client/client.js';
import { type ApiOption, openMockApi } from '../mock-api-client/local-mock-api.js';
import type { Output } from '../tool-kit/output.js';
import { n8nTarget, startReferenceTarget, type Target, type TargetName } from './targets.js';

/** A setup problem: the run cannot drive or judge anything, said in one line. */
export class SetupError extends Error {
  override name = 'SetupError';
}

/** What both command lines give (the shared flags of options.ts). */
export interface SessionOptions {
  api: ApiOption;
  target: TargetName;
  n8nUrl: string;
  approvalTimeoutSeconds: number;
  /** The reference workflow's node trace on the output's stderr. */
  verbose: boolean;
}

export interface Session {
  api: MockApiClient;
  target: Target;
  /** Closes the client, the target and an in-process mock API, in that order. */
  close(): Promise<void>;
}

/** `startReference`: the checker's tests pass broken variants of the reference workflow here. */
export async function openSession(
  options: SessionOptions,
  output: Output,
  startReference: typeof startReferenceTarget = startReferenceTarget,
): Promise<Session> {
  const { api, mockApiUrl, localApi } = await openMockApi(options.api);
  let target: Target | undefined;
  const close = async () => {
    api.close();
    await target?.close();
    await localApi?.close();
  };
  try {
    if (options.target === 'reference') {
      if (mockApiUrl === undefined) throw new SetupError('the reference target needs the mock API over HTTP');
      target = await startReference({
        mockApiUrl,
        approvalTimeoutSeconds: options.approvalTimeoutSeconds,
        ...(options.verbose ? { log: output.err } : {}),
      });
    } else {
      target = n8nTarget({ n8nUrl: options.n8nUrl, approvalTimeoutSeconds: options.approvalTimeoutSeconds });
    }
    return { api, target, close };
  } catch (error) {
    await close();
    throw error;
  }
}
