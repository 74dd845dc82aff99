/**
 * The lab test's look-alike images (test/lab/images) must carry exactly the names compose.yaml pins for
 * the images it pulls or builds from a pulled base (the walls), and the n8n one must be built from the n8n version the e2e tests install: else
 * the lab test would run compose.yaml against an image it never pulls, or pull nothing it built.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ComposeFile, e2eN8nVersion, parseYaml, readRepoFile } from './compose-policy.js';

const IMAGES_DIR = 'test/lab/images';

/** TAG=... of each recipe (test/lab/images/<image>/image.sh). */
function recipeTags(recipes: Record<string, string>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(recipes).map(([name, text]) => [name, text.match(/^TAG=(\S+)$/m)?.[1]]),
  );
}

/**
 * The images the lab test cannot make from this checkout: those compose.yaml pulls (services without
 * `build:`, less the ones another service builds), and those it builds from a Dockerfile stage that
 * installs Debian's packages into the pulled base (`build.target`: the walls). The mock API's own
 * image is built from the checkout's artefacts instead.
 */
function pulledImages(composeText: string): string[] {
  const services = Object.values(ComposeFile.parse(parseYaml(composeText)).services);
  const built = new Set(services.filter((s) => s.build !== undefined).map((s) => s.image));
  const fromStage = (s: (typeof services)[number]) =>
    typeof s.build === 'object' && s.build !== null && 'target' in s.build;
  const images = services
    .filter((s) => (s.build === undefined && !built.has(s.image)) || fromStage(s))
    .map((s) => s.image)
    .filter((i): i is string => typeof i === 'string');
  return [...new Set(images)].sort();
}

/** Every disagreement between compose.yaml, the recipes and build.sh's n8n version. */
function imageDrift(
  composeText: string,
  recipes: Record<string, string>,
  buildScript: string,
  n8nVersion: string,
): string[] {
  const out: string[] = [];
  const tags = recipeTags(recipes);
  for (const [name, tag] of Object.entries(tags)) if (!tag) out.push(`${name}/image.sh: no TAG= line`);
  const built = Object.values(tags).filter((t): t is string => typeof t === 'string');
  const pulled = pulledImages(composeText);
  for (const image of pulled)
    if (!built.includes(image)) out.push(`compose.yaml pulls ${image}: no recipe builds it`);
  for (const tag of built)
    if (!pulled.includes(tag)) out.push(`a recipe builds ${tag}: compose.yaml does not use it`);
  const version = buildScript.match(/^N8N_VERSION=(\S+)$/m)?.[1];
  if (version !== n8nVersion)
    out.push(`build.sh N8N_VERSION=${version}, the e2e tests install n8n ${n8nVersion}`);
  if (tags.n8n !== `n8nio/n8n:${n8nVersion}`)
    out.push(`n8n/image.sh TAG=${tags.n8n} is not n8nio/n8n:${n8nVersion}`);
  return out;
}

const composeText = readRepoFile('compose.yaml');
const buildScript = readRepoFile(`${IMAGES_DIR}/build.sh`);
const recipes: Record<string, string> = Object.fromEntries(
  readdirSync(new URL(`../../${IMAGES_DIR}/`, import.meta.url), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => [d.name, readRepoFile(`${IMAGES_DIR}/${d.name}/image.sh`)]),
);
const n8nVersion = e2eN8nVersion();

describe('test/lab/images look-alikes', () => {
  it('build exactly the images compose.yaml pulls, n8n at the e2e version', () => {
    expect(Object.keys(recipes).sort()).toEqual(['n8n', 'postgres', 'walls']);
    expect(pulledImages(composeText)).toEqual(Object.values(recipeTags(recipes)).sort());
    expect(imageDrift(composeText, recipes, buildScript, n8nVersion)).toEqual([]);
  });

  const broken: {
    name: string;
    compose?: string;
    recipes?: Record<string, string>;
    build?: string;
    found: string;
  }[] = [
    {
      name: 'compose.yaml moves the Postgres pin',
      compose: composeText.replace('image: postgres:16.4-alpine', 'image: postgres:17.2-alpine'),
      found: 'compose.yaml pulls postgres:17.2-alpine: no recipe builds it',
    },
    {
      name: 'a recipe tags another Postgres',
      recipes: {
        ...recipes,
        postgres: recipes.postgres?.replace(/^TAG=.*$/m, 'TAG=postgres:16.2-alpine') ?? '',
      },
      found: 'a recipe builds postgres:16.2-alpine: compose.yaml does not use it',
    },
    {
      name: 'a recipe without TAG',
      recipes: { ...recipes, postgres: recipes.postgres?.replace(/^TAG=.*$/m, '') ?? '' },
      found: 'postgres/image.sh: no TAG= line',
    },
    {
      name: 'build.sh installs another n8n',
      build: buildScript.replace(/^N8N_VERSION=.*$/m, 'N8N_VERSION=2.40.0'),
      found: `build.sh N8N_VERSION=2.40.0, the e2e tests install n8n ${n8nVersion}`,
    },
  ];
  for (const b of broken) {
    it(`finds the drift when ${b.name}`, () => {
      expect(
        imageDrift(b.compose ?? composeText, b.recipes ?? recipes, b.build ?? buildScript, n8nVersion),
      ).toContain(b.found);
    });
  }
});
