/**
 * Debian's chromium as every browser test and driver runs it (playwright-core downloads no browser of its
 * own here): where it is, and its flags, declared once.
 */

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
