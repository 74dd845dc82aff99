/**
 * docker/lab/tls.sh, the classroom's certificates made with openssl: the class CA made once and kept, a
 * certificate per address signed by it (the address in its subjectAltName), keys and folder private, and
 * a certificate that the CA in the folder did not sign made again. Checked with openssl itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'lab-tls-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const make = (dir: string, address: string) =>
  execFileSync('bash', ['docker/lab/tls.sh', dir, address], { encoding: 'utf8' }).trim();
const openssl = (...args: string[]) => execFileSync('openssl', args, { encoding: 'utf8' });
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('the classroom certificates (docker/lab/tls.sh)', () => {
  const dir = join(root, 'tls');
  it('makes the class CA once, a certificate per address signed by it, keys 0600 in a 0700 folder', () => {
    const first = make(dir, '192.0.2.10');
    expect(first).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(make(dir, '192.0.2.11')).toBe(first);
    for (const address of ['192.0.2.10', '192.0.2.11']) {
      expect(openssl('verify', '-CAfile', join(dir, 'class-ca.pem'), join(dir, `${address}.pem`))).toContain(
        ': OK',
      );
      expect(
        openssl('x509', '-in', join(dir, `${address}.pem`), '-noout', '-ext', 'subjectAltName'),
      ).toContain(`IP Address:${address}`);
      expect(mode(join(dir, `${address}.key`))).toBe('600');
    }
    expect(mode(join(dir, 'class-ca.key'))).toBe('600');
    expect(mode(dir)).toBe('700');
    expect(openssl('x509', '-in', join(dir, 'class-ca.pem'), '-noout', '-ext', 'basicConstraints')).toContain(
      'CA:TRUE',
    );
  });

  it('keeps an address certificate the CA signed, and makes again one it did not', () => {
    const kept = readFileSync(join(dir, '192.0.2.10.pem'), 'utf8');
    make(dir, '192.0.2.10');
    expect(readFileSync(join(dir, '192.0.2.10.pem'), 'utf8')).toBe(kept);
    // Control: a certificate of another CA in its place is no longer kept.
    const other = join(root, 'other');
    make(other, '192.0.2.10');
    writeFileSync(join(dir, '192.0.2.10.pem'), readFileSync(join(other, '192.0.2.10.pem')));
    expect(() =>
      openssl('verify', '-CAfile', join(dir, 'class-ca.pem'), join(dir, '192.0.2.10.pem')),
    ).toThrow();
    make(dir, '192.0.2.10');
    expect(openssl('verify', '-CAfile', join(dir, 'class-ca.pem'), join(dir, '192.0.2.10.pem'))).toContain(
      ': OK',
    );
  });

  // The roster's, the board's and make up's line on trust (tls_roster_lines ADDRESS): the class CA for its
  // own certificates; for the trainer's own (LAB_TLS_CERT, marked ADDRESS.own) its fingerprint and no class CA,
  // which did not sign it.
  it("tells trainees to trust the class CA, or names the trainer's own certificate instead", () => {
    const labDir = join(root, 'roster');
    const tls = join(labDir, 'labs', 'tls');
    make(tls, '192.0.2.20');
    make(join(root, 'org'), '192.0.2.21');
    const lines = (address: string) =>
      execFileSync(
        'bash',
        ['-c', 'LAB_DIR=$1; . docker/lab/tls.sh; tls_roster_lines "$2"', 'x', labDir, address],
        {
          encoding: 'utf8',
        },
      ).trim();
    const fingerprint = (file: string) =>
      openssl('x509', '-in', file, '-noout', '-fingerprint', '-sha256').trim().replace(/^.*=/, '');
    const ca = fingerprint(join(tls, 'class-ca.pem'));
    expect(lines('192.0.2.20')).toBe(
      `# Class CA (trust it once per browser: docs/trainee-guide.md): ${join(tls, 'class-ca.pem')}, SHA-256 ${ca}`,
    );
    // The trainer's own for .21, as tls_lab_env keeps it: copied in, marked own.
    writeFileSync(join(tls, '192.0.2.21.pem'), readFileSync(join(root, 'org', '192.0.2.21.pem')));
    writeFileSync(join(tls, '192.0.2.21.own'), '');
    const own = lines('192.0.2.21');
    expect(own).toContain("the trainer's own for 192.0.2.21");
    expect(own).toContain(`SHA-256 ${fingerprint(join(tls, '192.0.2.21.pem'))}`);
    expect(own).not.toContain('Class CA');
    expect(own).not.toContain(ca);
  });
});
