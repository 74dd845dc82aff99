import { BlockList, isIP } from 'node:net';

/** A parsed address allowlist. Node's BlockList does the matching; we only parse and normalise. */
export interface AddressAllowlist {
  readonly cidrs: readonly string[];
  allows(address: string | undefined): boolean;
}

/** Parses `10.0.0.0/8, ::1/128, 127.0.0.1` (a bare address is a /32 or /128). Throws on a bad entry. */
export function parseCidrList(items: readonly string[]): AddressAllowlist | null {
  if (items.length === 0) return null;
  const list = new BlockList();
  for (const item of items) {
    const [address = '', prefixText, ...rest] = item.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (family === 0 || rest.length > 0 || !/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
      throw new Error(`not a CIDR: ${item}`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    cidrs: items,
    allows(remote) {
      if (!remote) return false;
      // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
      const v4 = remote.startsWith('::ffff:') && isIP(remote.slice(7)) === 4 ? remote.slice(7) : remote;
      const family = isIP(v4);
      return family !== 0 && list.check(v4, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
