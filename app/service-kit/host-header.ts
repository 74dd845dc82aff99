/**
 * The name a Host header gives, as the Host checks of the mock API, the console and the class board read
 * it: lower case, without a port or a trailing dot; an IPv6 literal keeps its brackets (a bracket never
 * closed gives '').
 */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}
