// Password hashing with scrypt: a self-describing string (parameters, salt, key) so the cost can grow without a migration.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const params = { N: 16384, r: 8, p: 1 };
const keyLength = 32;

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scryptCb(password.normalize('NFKC'), salt, keyLength, { ...opts, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, params);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** a hash of a random password: unknown users cost the same time as wrong passwords, so timing does not reveal user names */
let decoy: Promise<string> | undefined;

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [kind, n, r, p, salt, key] = (stored ?? await (decoy ??= hashPassword(randomBytes(16).toString('hex')))).split('$');
  if (kind !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
}

export const passwordRules = { min: 10, max: 256 };

export function passwordProblem(password: string): string | undefined {
  if (password.length < passwordRules.min) return `a password needs at least ${passwordRules.min} characters`;
  if (password.length > passwordRules.max) return `a password has at most ${passwordRules.max} characters`;
  return undefined;
}

export function newPassword(): string {
  return randomBytes(15).toString('base64url');
}
