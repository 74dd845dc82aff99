/**
 * docker/lab.sh read as text, so that the tests of the host commands follow it instead of repeating it:
 * the parts it sources from docker/lab/, and the commands its `main` dispatches, each in its order.
 */

/** The parts lab.sh sources (its `. "$ROOT/docker/lab/<part>.sh"` lines, as test/appliance/lab-fn.sh reads them). */
export function labParts(text: string): string[] {
  const parts = [...text.matchAll(/^\. "\$ROOT\/docker\/lab\/([a-z0-9-]+\.sh)"$/gm)].map((m) => m[1] ?? '');
  if (parts.length === 0) throw new Error('docker/lab.sh sources no part of docker/lab/ that can be read');
  return parts;
}

/** The commands lab.sh's `main` dispatches, each with what it runs: the arms of its `case "$cmd"`, not the usage (`*`). */
export function labCommands(text: string): { command: string; runs: string }[] {
  const main = /^main\(\) \{\n([\s\S]*?)^\}$/m.exec(text)?.[1] ?? '';
  const commands = [...main.matchAll(/^ {4}([a-z0-9-]+)\) (.*) ;;$/gm)].map((m) => ({
    command: m[1] ?? '',
    runs: m[2] ?? '',
  }));
  if (commands.length === 0) throw new Error("docker/lab.sh's main dispatches no command that can be read");
  return commands;
}
