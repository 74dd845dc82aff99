/**
 * Debian's chromium as every browser test and driver runs it (playwright-core downloads no browser of its
 * own here): where it is, its flags, and its launch, written once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** CHROMIUM, else Debian's path. */
export const CHROMIUM_PATH = process.env.CHROMIUM || '/usr/bin/chromium';

/** Headless; no sandbox (CI runs as root); no GPU; nothing fetched in the background, no first-run pages. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The browser itself, for a test or driver that opens its contexts (a viewport, no JavaScript) itself. */
export function launchChromium(executablePath: string = CHROMIUM_PATH): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_FLAGS] });
}

/** One context on a profile of its own, its first page, and close(), which removes the profile too. */
export interface ChromiumSession {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Chromium on a temporary profile, 1280×900; `args` adds flags (a host-resolver rule, say). */
export async function openChromium(args: string[] = []): Promise<ChromiumSession> {
  const profile = mkdtempSync(join(tmpdir(), 'soar-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [...CHROMIUM_FLAGS, ...args],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
