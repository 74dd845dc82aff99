import { describe, expect, it } from 'vitest';
import { readRepoFile } from './compose-policy.js';
import { dockerfileViolations } from './dockerfile-policy.js';

const dockerfile = readRepoFile('Dockerfile');
/** The runtime stage's FROM line, as written in the Dockerfile (a literal `${...}`, not a template). */
const RUNTIME_FROM = ['FROM $', '{NODE_IMAGE} AS runtime'].join('');

describe('Dockerfile', () => {
  it('is multi-stage, pinned and overridable, non-root, with a tool-free HEALTHCHECK', () => {
    expect(dockerfileViolations(dockerfile)).toEqual([]);
  });

  it('pins the default base image by digest', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:[0-9.]+-[a-z-]+@sha256:[0-9a-f]{64}$/m);
  });

  it('keeps the context to what the build needs (.dockerignore is an allow-list)', () => {
    const lines = readRepoFile('.dockerignore')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toBe('*');
    expect(lines.filter((l) => l.startsWith('!'))).not.toContain('!.env');
  });
});

/** Deliberately broken variants of the real file: each must fail for its reason. */
const broken: [string, (text: string) => string, RegExp][] = [
  ['the final user is root', (t) => t.replace('USER 1000:1000', 'USER root'), /final user must not be root/],
  ['no USER at all', (t) => t.replace(/^USER .*$/m, ''), /must set a non-root USER/],
  ['no HEALTHCHECK', (t) => t.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, ''), /needs a HEALTHCHECK/],
  [
    'a HEALTHCHECK that needs curl',
    (t) =>
      t.replace(/^HEALTHCHECK[^\n]*\\\n[^\n]*\n/m, 'HEALTHCHECK CMD curl -f http://127.0.0.1:8081/health\n'),
    /no curl or wget/,
  ],
  [
    'an unpinned base by tag',
    (t) => t.replace(/^ARG NODE_IMAGE=.*$/m, 'ARG NODE_IMAGE=node:20-slim'),
    /base image must be pinned/,
  ],
  [
    'an unpinned base, latest',
    (t) => t.replace(/^ARG NODE_IMAGE=.*$/m, 'ARG NODE_IMAGE=node:latest'),
    /must be pinned/,
  ],
  [
    'a base that no ARG can override',
    (t) => t.replace(RUNTIME_FROM, 'FROM node:20.20.2-bookworm-slim AS runtime'),
    /must come from a build ARG/,
  ],
  ['a single stage', (t) => t.slice(0, t.indexOf('FROM ')) + t.slice(t.indexOf(RUNTIME_FROM)), /multi-stage/],
  [
    'a shell-form CMD (SIGTERM goes to sh)',
    (t) => t.replace(/^CMD \["node".*$/m, 'CMD node dist/app/api/main.js'),
    /exec form/,
  ],
];

describe('the Dockerfile policy rejects each broken fixture', () => {
  it.each(broken)('%s', (_name, mutate, reason) => {
    const text = mutate(dockerfile);
    expect(text).not.toBe(dockerfile);
    expect(dockerfileViolations(text).join('\n')).toMatch(reason);
  });
});
