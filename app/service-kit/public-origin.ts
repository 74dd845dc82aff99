/**
 * LAB_PUBLIC_ORIGIN: the https:// origin a TLS proxy serves a lab on, without a port or a path. The proxy
 * listens on each lab's own port numbers (a class of labs behind one name), so an app's public origin is
 * that name with the port the app is published on. The same rule as docker/lab/values.sh's
 * check_public_origin.
 */
import { z } from 'zod';

const ORIGIN = /^https:\/\/(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?)\/?$/i;

export const PublicOriginSchema = z
  .string()
  .regex(ORIGIN, 'must be an https:// origin without a port or a path (e.g. https://lab.example.org)')
  .transform((origin) => origin.replace(/\/$/, '').toLowerCase());

/** `https://lab.example.org` and port 8089 → `https://lab.example.org:8089` (443 left out, as browsers do). */
export function publicOriginAt(origin: string, port: number): string {
  return new URL(`${origin}:${port}`).origin;
}
