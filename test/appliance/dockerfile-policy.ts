/**
 * The lab's policy for the Dockerfile, checked without an engine: multi-stage, every base pinned (by
 * digest or by a full x.y.z tag) and overridable by a build ARG, a non-root final user, a HEALTHCHECK
 * that needs no extra tool, and an exec-form CMD so that SIGTERM reaches node.
 */

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with line continuations joined and comments dropped. */
export function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const out: Instruction[] = [];
  for (const raw of joined.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (match?.[1]) out.push({ keyword: match[1].toUpperCase(), args: (match[2] ?? '').trim() });
  }
  return out;
}

const PINNED = /^[^\s:@]+(:[0-9]+\.[0-9]+\.[0-9]+[^\s@]*)?(@sha256:[0-9a-f]{64})?$/;

function isPinned(image: string): boolean {
  const m = PINNED.exec(image);
  return m !== null && (m[1] !== undefined || m[2] !== undefined);
}

export function dockerfileViolations(text: string): string[] {
  const out: string[] = [];
  const all = instructions(text);
  const globalArgs = new Map<string, string | undefined>();
  const stages: { name: string | undefined; body: Instruction[] }[] = [];
  for (const ins of all) {
    if (ins.keyword === 'FROM') {
      const [image = '', as, name] = ins.args.split(/\s+/);
      const known = stages.some((s) => s.name === image);
      const ref = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$/.exec(image);
      if (ref?.[1]) {
        if (!globalArgs.has(ref[1]))
          out.push(`FROM ${image}: the ARG ${ref[1]} must be declared before the first FROM`);
        const value = globalArgs.get(ref[1]);
        const defaultsToStage = stages.some((s) => s.name === value);
        if (value === undefined) out.push(`ARG ${ref[1]} needs a pinned default`);
        else if (!defaultsToStage && !isPinned(value))
          out.push(`ARG ${ref[1]}=${value}: the base image must be pinned`);
      } else if (!known && image !== 'scratch') {
        out.push(`FROM ${image}: the base image must come from a build ARG (overridable)`);
        if (!isPinned(image)) out.push(`FROM ${image}: the base image must be pinned`);
      }
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (stage) stage.body.push(ins);
    else if (ins.keyword === 'ARG') {
      const [key = '', ...rest] = ins.args.split('=');
      globalArgs.set(key, rest.length > 0 ? rest.join('=') : undefined);
    }
  }
  if (stages.length < 2) out.push('must be a multi-stage build');
  const final = stages.at(-1)?.body ?? [];
  const user = final.filter((i) => i.keyword === 'USER').at(-1)?.args;
  if (user === undefined) out.push('the final stage must set a non-root USER');
  else if (['root', '0'].includes(user.split(':')[0] ?? ''))
    out.push(`USER ${user}: the final user must not be root`);
  const health = final.filter((i) => i.keyword === 'HEALTHCHECK').at(-1)?.args;
  if (health === undefined || /^NONE$/i.test(health)) out.push('the final stage needs a HEALTHCHECK');
  else if (/\b(curl|wget)\b/.test(health))
    out.push('the HEALTHCHECK must need no extra tool (no curl or wget)');
  const cmd = final.filter((i) => i.keyword === 'CMD' || i.keyword === 'ENTRYPOINT').at(-1);
  if (!cmd?.args.startsWith('[')) out.push('CMD must be in exec form, so that SIGTERM reaches node');
  return out;
}
