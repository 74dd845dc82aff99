/**
 * The console serves nothing until the lab's walls are in place. After an engine restart, or a reboot,
 * Docker starts a lab's containers in any order, so the console could listen (its ports published to the
 * classroom) before the walls' rules are back. The walls service (docker/walls/walls.sh) writes the time
 * into its ready file once every rule is in place and again on every check; the file is in a tmpfs
 * volume, gone with the last container that mounts it, so after a restart it is there only once the
 * walls have put their rules back. The console waits for a fresh one before it listens at all, and after
 * `waitMs` ends (exit 1): its restart policy starts it again, to wait again.
 */
import { readFile, stat } from 'node:fs/promises';

export type WallsWait = {
  /** The walls' ready file (CONSOLE_WALLS_READY); undefined: no walls to wait for (outside compose). */
  file: string | undefined;
  /** How long to wait for it (CONSOLE_WALLS_WAIT_SECONDS, default 120 s). */
  waitMs: number;
  /** A file older than this is stale: the walls no longer check (twice their 30 s and some). */
  maxAgeMs: number;
  pollMs: number;
};

export function wallsWaitFromEnv(env: NodeJS.ProcessEnv): WallsWait {
  const seconds = Number(env.CONSOLE_WALLS_WAIT_SECONDS ?? '120');
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error(
      `CONSOLE_WALLS_WAIT_SECONDS must be a positive number of seconds, not ${JSON.stringify(env.CONSOLE_WALLS_WAIT_SECONDS)}`,
    );
  return {
    file: env.CONSOLE_WALLS_READY || undefined,
    waitMs: seconds * 1000,
    maxAgeMs: 75_000,
    pollMs: 500,
  };
}

/** Whether the ready file is there and fresh: written by the walls within maxAgeMs. */
export async function wallsReady(file: string, maxAgeMs: number, now = Date.now()): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([stat(file), readFile(file, 'utf8')]);
    const written = Number(text.trim()) * 1000;
    const at = Number.isFinite(written) && written > 0 ? written : info.mtimeMs;
    return now - at <= maxAgeMs;
  } catch {
    return false;
  }
}

/** Resolves true once the walls are ready (at once without a file to wait for), false after waitMs. */
export async function waitForWalls(wait: WallsWait): Promise<boolean> {
  const { file } = wait;
  if (file === undefined) return true;
  const until = Date.now() + wait.waitMs;
  for (;;) {
    if (await wallsReady(file, wait.maxAgeMs)) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, wait.pollMs));
  }
}
