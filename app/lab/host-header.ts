/**
 * The name a Host header gives, as the mock API's and the console's Host checks both read it: lower case,
 * without a port or a trailing dot; an IPv6 literal keeps its brackets (a bracket never closed gives '').
 */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return (colon === -1 ? h : h.slice(0, colon)).replace(/\.$/, '');
}
