/** Where a tool's lines go: the terminal's stdout and stderr, or a test's lists. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}
