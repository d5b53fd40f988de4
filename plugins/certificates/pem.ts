// Reading PEM certificate chains and keys with node:crypto: what a certificate covers, and every reason an upload is unusable.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';

export interface PemProblem { rule: string; path: string; message: string }
export interface CertificateFacts {
  domains: string[];
  issuer: string;
  serial: string;
  notBefore: string;
  notAfter: string;
}

const blockPattern = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

export function pemBlocks(text: string): string[] {
  return text.match(blockPattern) ?? [];
}

/** the common name of a distinguished name as node prints it (`C=US\nO=…\nCN=…`), or the whole name */
function commonName(dn: string): string {
  const cn = dn.split('\n').find((part) => part.startsWith('CN='));
  return cn ? cn.slice(3) : dn.replace(/\n/g, ', ');
}

export function dnsNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '').split(', ').filter((e) => e.startsWith('DNS:')).map((e) => e.slice(4).toLowerCase());
}

export function factsOf(leaf: X509Certificate): CertificateFacts {
  return {
    domains: [...new Set(dnsNames(leaf))],
    issuer: commonName(leaf.issuer),
    serial: leaf.serialNumber.toLowerCase(),
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
  };
}

/** the leaf's facts from a chain this plugin stored or received from a CA */
export function chainFacts(chain: string): CertificateFacts {
  return factsOf(new X509Certificate(pemBlocks(chain)[0]));
}

function issues(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/**
 * Every problem of an uploaded chain (leaf first, then each issuer) and key: unparsable, key mismatch, expired or not
 * yet valid, out of order or not chaining, no DNS name. Empty when it can be served.
 */
export function checkUpload(chainText: string, keyText: string, now = new Date()): { problems: PemProblem[]; facts: CertificateFacts | null } {
  const problems: PemProblem[] = [];
  const blocks = pemBlocks(chainText);
  if (!blocks.length) problems.push({ rule: 'unparsable', path: 'certificate', message: 'no PEM certificate (-----BEGIN CERTIFICATE-----) was found' });
  const certs: (X509Certificate | null)[] = blocks.map((block, i) => {
    try {
      return new X509Certificate(block);
    } catch (err) {
      problems.push({ rule: 'unparsable', path: `certificate[${i}]`, message: `certificate ${i + 1} of the chain cannot be read: ${(err as Error).message}` });
      return null;
    }
  });
  let key: KeyObject | null = null;
  try {
    key = createPrivateKey(keyText);
  } catch (err) {
    problems.push({ rule: 'unparsable', path: 'key', message: `the private key cannot be read (PEM, unencrypted): ${(err as Error).message}` });
  }
  const leaf = certs[0] ?? null;
  if (leaf && key && !leaf.checkPrivateKey(key)) {
    problems.push({ rule: 'key-mismatch', path: 'key', message: 'the private key does not belong to the certificate (the first one of the chain)' });
  }
  certs.forEach((cert, i) => {
    if (!cert) return;
    const what = i === 0 ? 'the certificate' : `certificate ${i + 1} of the chain`;
    if (new Date(cert.validTo) <= now) problems.push({ rule: 'expired', path: `certificate[${i}]`, message: `${what} expired on ${new Date(cert.validTo).toISOString()}` });
    if (new Date(cert.validFrom) > now) problems.push({ rule: 'not-yet-valid', path: `certificate[${i}]`, message: `${what} is valid only from ${new Date(cert.validFrom).toISOString()}` });
  });
  for (let i = 0; i + 1 < certs.length; i++) {
    const child = certs[i];
    const parent = certs[i + 1];
    if (!child || !parent || issues(child, parent)) continue;
    const realParent = certs.findIndex((c, j) => j !== i && c !== null && issues(child, c));
    problems.push(realParent >= 0
      ? { rule: 'chain-order', path: `certificate[${i + 1}]`, message: `the chain is out of order: certificate ${i + 1} is issued by certificate ${realParent + 1}, which must follow it directly` }
      : { rule: 'chain-broken', path: `certificate[${i + 1}]`, message: `certificate ${i + 1} of the chain is not issued by certificate ${i + 2} (${commonName(parent.subject)})` });
  }
  if (leaf && !dnsNames(leaf).length) problems.push({ rule: 'no-hostname', path: 'certificate[0]', message: 'the certificate names no DNS hostname (subject alternative names)' });
  return { problems, facts: leaf && !problems.length ? factsOf(leaf) : null };
}
