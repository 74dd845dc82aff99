/** The page's small DOM helpers: elements by id, elements built with textContent only, the message line. */

export type Child = Node | string | null | undefined;
export type Attrs = Record<string, string | ((event: Event) => void) | undefined>;
export function $(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el;
}
export function input(id: string): HTMLInputElement | HTMLSelectElement {
  const el = $(id);
  if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) return el;
  throw new Error(`#${id} is not a field`);
}

export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}
export function fill(el: HTMLElement, nodes: Node[], empty: string, cols?: number): void {
  el.replaceChildren();
  if (nodes.length === 0) {
    el.append(
      cols
        ? h('tr', {}, h('td', { colspan: String(cols), class: 'empty', text: empty }))
        : h('li', { class: 'empty', text: empty }),
    );
  } else el.append(...nodes);
}
export const time = (iso: string | null | undefined) => (iso ? iso.slice(11, 19) : '–');
export function say(text: string, kind: 'info' | 'ok' | 'bad' = 'info'): void {
  const m = $('message');
  m.textContent = text;
  m.dataset.kind = kind;
}
