/**
 * The classroom certificate and key as the console and the class board take them: PEM text (the chain
 * after the certificate), given by docker/lab/tls.sh, read by Node's own `tls`/`https`.
 */
import { z } from 'zod';

export const PemCertificateSchema = z
  .string()
  .includes('-----BEGIN CERTIFICATE-----', { error: 'must be a PEM certificate' });
export const PemKeySchema = z
  .string()
  .regex(/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'must be a PEM private key');
