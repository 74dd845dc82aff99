/**
 * n8n only at an address on its own network (N8N_ALLOWED_SUBNET, in the lab n8n-front's subnet): every
 * connection a process makes to n8n's host name resolves the name and refuses an address outside it. The
 * console is on a network that is not internal too, so while n8n restarts Docker's resolver forwards the
 * name `n8n` to the host's resolvers, and a machine on the LAN named n8n would otherwise receive the
 * editor's logins (through the gate) and the lab's API key. The guard sits where every connection is made:
 * the lookup of net.connect (the gate) and the dispatcher of fetch (this process's n8n client, approvals,
 * test alerts, the checker's moves), so no caller can forget it.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import { Agent, setGlobalDispatcher } from 'undici';

/** One IPv4 network, parsed. */
export interface Subnet {
  readonly cidr: string;
  includes(address: string): boolean;
}

/** `172.30.66.192/26` (a bare address is a /32); throws one line on anything else. */
export function parseSubnet(text: string): Subnet {
  const [address = '', prefixText = '32', ...rest] = text.trim().split('/');
  const prefix = Number(prefixText);
  if (!isIPv4(address) || rest.length > 0 || !/^\d{1,2}$/.test(prefixText) || prefix > 32) {
    throw new Error('must be an IPv4 network, a.b.c.d/n');
  }
  const list = new BlockList();
  list.addSubnet(address, prefix, 'ipv4');
  const cidr = `${address}/${prefix}`;
  return {
    cidr,
    includes: (candidate) => {
      const v4 = candidate.startsWith('::ffff:') ? candidate.slice(7) : candidate;
      return isIPv4(v4) && list.check(v4, 'ipv4');
    },
  };
}

/** The refusal: one line naming the address (and the name it came from) and the subnet. */
export class OutsideSubnetError extends Error {
  readonly code = 'EN8NOUTSIDESUBNET';
  constructor(host: string, address: string, subnet: Subnet) {
    const name = host === address ? '' : ` (${host})`;
    super(`n8n at ${address}${name} is outside N8N_ALLOWED_SUBNET ${subnet.cidr}: not connecting`);
  }
}

/** How a name is resolved: dns.lookup with `all` (the tests give a table instead). */
export type Resolve = (
  host: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: Resolve = (host, options, callback) => dnsLookup(host, options, callback);

/**
 * net.connect's `lookup` for n8n's host: IPv4 only (the subnet is IPv4), every address the name has must be
 * inside, else nothing is connected to. `onRefused` hears each refusal (the console prints it).
 */
export function subnetLookup(
  subnet: Subnet,
  resolve: Resolve = systemResolve,
  onRefused: (error: OutsideSubnetError) => void = () => {},
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { hints: options.hints ?? 0, family: 4, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const outside = addresses.find((a) => !subnet.includes(a.address));
      const first = addresses[0];
      if (outside !== undefined || first === undefined) {
        const error = new OutsideSubnetError(hostname, outside?.address ?? '(no IPv4 address)', subnet);
        onRefused(error);
        return callback(error, '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, first.address, 4);
    });
  };
}

/** The literal IP in an n8n URL outside the subnet, as the one-line refusal; null when fine or a name. */
export function literalOutside(n8nUrl: string, subnet: Subnet): string | null {
  const host = new URL(n8nUrl).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0 || subnet.includes(host)) return null;
  return new OutsideSubnetError(host, host, subnet).message;
}

/** A fetch dispatcher whose connections to `host` take subnetLookup; every other host resolves as usual. */
export function subnetDispatcher(host: string, lookup: LookupFunction): Agent {
  const name = host.toLowerCase();
  const perHost: LookupFunction = (hostname, options, callback) =>
    hostname.toLowerCase() === name
      ? lookup(hostname, options, callback)
      : dnsLookup(hostname, options, callback);
  return new Agent({ connect: { lookup: perHost } });
}

/**
 * Guards this whole process's connections to n8n (an entry point calls it once): fetch's global dispatcher
 * takes the subnet lookup for N8N_URL's host, and the lookup is returned for the process's own net.connect.
 * No subnet: no guard (a developer's n8n on loopback). Throws one line for a literal address outside.
 */
export function guardN8nConnections(
  n8nUrl: string,
  subnet: Subnet | null,
  onRefused?: (error: OutsideSubnetError) => void,
): LookupFunction | undefined {
  if (subnet === null) return undefined;
  const literal = literalOutside(n8nUrl, subnet);
  if (literal !== null) throw new Error(literal);
  const lookup = subnetLookup(subnet, systemResolve, onRefused);
  setGlobalDispatcher(subnetDispatcher(new URL(n8nUrl).hostname, lookup));
  return lookup;
}

/**
 * The guard's verdict on n8n's address now: the refusal (a tool stops on it in one line, before it sends
 * anything that a refused connection would turn into a wrong verdict), or null (inside, or not resolved
 * at all: the tool's own handling of an n8n that does not answer applies).
 */
export function refusalOf(n8nUrl: string, lookup: LookupFunction): Promise<OutsideSubnetError | null> {
  const host = new URL(n8nUrl).hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) =>
    lookup(host, { all: true }, (err) => resolve(err instanceof OutsideSubnetError ? err : null)),
  );
}

/**
 * fetch with the guard's refusal as its error: undici says only "fetch failed" and keeps the reason in
 * `cause`, which callers that print `message` would lose.
 */
export function withRefusalShown(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await fetchImpl(input, init);
    } catch (err) {
      if (err instanceof Error && err.cause instanceof OutsideSubnetError) throw err.cause;
      throw err;
    }
  };
}
