// Basic-auth passwords the way Caddy 2.6's http_basic provider checks them (scrypt with these parameters): one place knows the format.
import { randomBytes, scryptSync } from 'node:crypto';
import type { PasswordHash } from './types.ts';

export const scryptParams = { N: 16384, r: 8, p: 1, key_length: 32 };

export function hashPassword(password: string): PasswordHash {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, scryptParams.key_length, { N: scryptParams.N, r: scryptParams.r, p: scryptParams.p });
  return { algorithm: 'scrypt', hash: hash.toString('base64'), salt: salt.toString('base64') };
}

export function validHash(h: unknown): h is PasswordHash {
  const v = h as PasswordHash | undefined;
  return typeof v === 'object' && v !== null && v.algorithm === 'scrypt' && /^[A-Za-z0-9+/]{40,}={0,2}$/.test(v.hash) && /^[A-Za-z0-9+/]{16,}={0,2}$/.test(v.salt);
}
