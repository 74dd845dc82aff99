/**
 * What shows an AI assistant, chat or other online-only AI entry point in the n8n 2.41.1 editor, as one
 * list, and the check that none is visible on the page a trainee has open. The lab turns these off with
 * N8N_DISABLED_MODULES (test/editor/run.sh); with them on, this check fails (run.sh proves it).
 */
import type { Page } from 'playwright-core';

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
