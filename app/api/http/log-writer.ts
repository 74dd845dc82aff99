/**
 * Buffers log lines and writes them once per tick: one write() per burst instead of one per request,
 * which keeps logging off the hot path's cost. flush() is called on shutdown so no line is lost.
 */
export function createLogWriter(write: (chunk: string) => void): {
  log: (line: string) => void;
  flush: () => void;
} {
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = `${pending.join('\n')}\n`;
    pending = [];
    write(chunk);
  };
  return {
    log(line) {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
