// Reading PEM certificate chains and keys with node:crypto: what a certificate covers, and every reason an upload is unusable.
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';

export interface PemProblem { rule: string; path: string; message: string }
export interface CertificateDetails {
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

export function detailsOf(leaf: X509Certificate): CertificateDetails {
  return {
    domains: [...new Set(dnsNames(leaf))],
    issuer: commonName(leaf.issuer),
    serial: leaf.serialNumber.toLowerCase(),
    notBefore: new Date(leaf.validFrom).toISOString(),
    notAfter: new Date(leaf.validTo).toISOString(),
  };
}

/** the leaf's details from a chain this plugin stored or received from a CA */
export function chainDetails(chain: string): CertificateDetails {
  return detailsOf(new X509Certificate(pemBlocks(chain)[0]));
}

function issues(child: X509Certificate, parent: X509Certificate): boolean {
  return child.checkIssued(parent) && child.verify(parent.publicKey);
}

/** chain-order once (with the order that chains) when the certificates chain in another order; else chain-broken per break */
function chainProblems(certs: readonly (X509Certificate | null)[]): PemProblem[] {
  if (certs.some((c) => c === null)) return [];
  const list = certs as X509Certificate[];
  const breaks = list.slice(0, -1).map((c, i) => i).filter((i) => !issues(list[i], list[i + 1]));
  if (!breaks.length) return [];
  const order = [0];
  for (let next = list.findIndex((c, j) => !order.includes(j) && issues(list[order.at(-1)!], c)); next >= 0;
    next = list.findIndex((c, j) => !order.includes(j) && issues(list[order.at(-1)!], c))) order.push(next);
  if (order.length === list.length) {
    return [{ rule: 'chain-order', path: 'certificate', message: `the chain is out of order: each certificate must be followed by its issuer (here: certificates ${order.map((i) => i + 1).join(', ')})` }];
  }
  return breaks.map((i) => {
    const realParent = list.findIndex((c, j) => j !== i && issues(list[i], c));
    return realParent >= 0
      ? { rule: 'chain-order', path: `certificate[${i + 1}]`, message: `the chain is out of order: certificate ${i + 1} is issued by certificate ${realParent + 1}, which must follow it directly` }
      : { rule: 'chain-broken', path: `certificate[${i + 1}]`, message: `certificate ${i + 1} of the chain is not issued by certificate ${i + 2} (${commonName(list[i + 1].subject)})` };
  });
}

/**
 * Every problem of an uploaded chain (leaf first, then each issuer) and key: unparsable, key mismatch, expired or not
 * yet valid, out of order or not chaining, no DNS name. Empty when it can be served.
 */
export function checkUpload(chainText: string, keyText: string, now = new Date()): { problems: PemProblem[]; details: CertificateDetails | null } {
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
  problems.push(...chainProblems(certs));
  if (leaf && !dnsNames(leaf).length) problems.push({ rule: 'no-hostname', path: 'certificate[0]', message: 'the certificate names no DNS hostname (subject alternative names)' });
  return { problems, details: leaf && !problems.length ? detailsOf(leaf) : null };
}
