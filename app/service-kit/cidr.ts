/** Lists of addresses and networks parsed for Node's BlockList (admitted or refused clients). */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * A parsed list of addresses and networks (the mock API's admitted clients, the console's refused ones).
 * Node's BlockList does the matching; we only parse and normalise.
 */
export interface AddressList {
  readonly cidrs: readonly string[];
  includes(address: string | undefined): boolean;
}

/** Parses `10.0.0.0/8, ::1/128, 127.0.0.1` (a bare address is a /32 or /128). Throws on a bad entry. */
export function parseCidrList(items: readonly string[]): AddressList | null {
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
    includes(remote) {
      if (!remote) return false;
      // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
      const v4 = remote.startsWith('::ffff:') && isIP(remote.slice(7)) === 4 ? remote.slice(7) : remote;
      const family = isIP(v4);
      return family !== 0 && list.check(v4, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** An environment variable's comma-separated addresses and networks, parsed; unset or empty: null. */
export const CidrListSchema = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const items = text
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
    try {
      return parseCidrList(items);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : String(err) });
      return z.NEVER;
    }
  });
