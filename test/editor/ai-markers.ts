/**
 * What shows an AI assistant, chat or other online-only AI entry point in the n8n 2.41.1 editor, as one
 * list, the check that none is visible on the page a trainee has open, and that check on every settings
 * page. The lab turns these off with N8N_DISABLED_MODULES (test/editor/run.sh); with them on, this check
 * fails (run.sh proves it).
 */
import type { Page } from 'playwright-core';
import { doing, say } from './editor-kit.js';

/**
 * The forbidden markers. `text`: matched against the visible text of every element and against the
 * accessible name of every visible button, link, menu item and tab. `testIds`: n8n's own `data-test-id`s
 * of the assistant's controls that carry no text (the floating button is an icon).
 */
export const FORBIDDEN_MARKERS = {
  text: [
    // The instance-ai module: sidebar "n8n Assistant", /assistant "Build and debug faster with the n8n
    // Assistant", Settings > "n8n Assistant"; the license-gated AI Assistant ("Ask Assistant").
    /\bAssistants?\b/i,
    // Ask AI in the Code node (license-gated) and the canvas button "n8n AI" (instance-ai module).
    /\bAsk AI\b/i,
    /\bAI\b/,
    // The chat-hub module: "New AI chat", Settings > "Chat"; the Chat trigger's "Open chat".
    /\bChats?\b/i,
    // The agents module: "Build an agent" on the empty overview, "New agent" in the + menu.
    /\bAgents?\b/i,
  ],
  testIds: [
    'ask-assistant-floating-button',
    'ask-assistant-canvas-action-button',
    'ask-assistant-button',
    'node-error-view-ask-assistant-button',
    'node-error-view-instance-ai-button',
    'project-instance-ai-menu-item',
    'project-chat-menu-item',
    'start-with-ai-button',
    'easy-ai-button',
    'workflow-chat-button',
  ],
} as const;

const NAMED_ROLES = ['button', 'link', 'menuitem', 'tab'] as const;

/** Every forbidden marker visible on the page, described in a few words (empty: none). */
export async function visibleAiMarkers(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const marker of FORBIDDEN_MARKERS.text) {
    const texts = await page.getByText(marker).filter({ visible: true }).allInnerTexts();
    const text = texts.map((t) => t.trim()).find((t) => t !== '' && t.length <= 80);
    if (texts.length > 0) found.push(`text "${text ?? texts[0]?.trim().slice(0, 80)}"`);
    for (const role of NAMED_ROLES) {
      const named = page.getByRole(role, { name: marker }).filter({ visible: true });
      if ((await named.count()) === 0) continue;
      const label = (await named.first().getAttribute('aria-label')) ?? (await named.first().innerText());
      found.push(`${role} "${label.trim().slice(0, 80)}"`);
    }
  }
  for (const id of FORBIDDEN_MARKERS.testIds) {
    if ((await page.locator(`[data-test-id="${id}"]`).filter({ visible: true }).count()) > 0) {
      found.push(`control ${id}`);
    }
  }
  return [...new Set(found)];
}

/** Fails naming every forbidden marker visible on the page (`where`: the page, for the message). */
export async function assertNoAi(page: Page, where: string): Promise<void> {
  const found = await visibleAiMarkers(page);
  if (found.length > 0) throw new Error(`AI entry point visible on ${where}: ${found.join(', ')}`);
}

/** Every settings page the trainee can open from the sidebar's "Settings" menu, each without AI. */
export async function settingsPages(page: Page, quiet: () => Promise<void>): Promise<void> {
  // 2.41.1: the sidebar's "Settings" (a menu item) opens a menu of the settings pages and "Sign out".
  doing('opening the Settings menu');
  await page.goto(`${new URL(page.url()).origin}/home/workflows`);
  await quiet();
  await page.getByRole('menuitem', { name: 'Settings', exact: true }).click();
  const items = page.getByRole('menuitem').filter({ visible: true });
  await page.getByRole('menuitem', { name: 'Sign out' }).waitFor();
  await assertNoAi(page, 'the Settings menu');
  const names: string[] = [];
  for (const item of await items.all()) {
    const name = (await item.getAttribute('aria-label')) ?? (await item.innerText()).trim();
    if (name && !['Sign out', 'Settings', 'Overview', 'Insights', 'Help', 'Add new item'].includes(name)) {
      names.push(name);
    }
  }
  if (names.length === 0) throw new Error('the Settings menu lists no page');
  // On a settings page, 2.41.1's sidebar lists the same pages as menu items.
  await page.getByRole('menuitem', { name: names[0], exact: true }).filter({ visible: true }).first().click();
  await page.waitForURL(/\/settings\//);
  for (const name of names) {
    doing(`opening Settings > ${name}`);
    await page.getByRole('menuitem', { name, exact: true }).filter({ visible: true }).first().click();
    await quiet();
    await assertNoAi(page, `Settings > ${name} (${new URL(page.url()).pathname})`);
  }
  say(`settings: no assistant, AI or chat entry point on ${names.length} pages (${names.join(', ')})`);
}
