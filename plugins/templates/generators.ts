// The explicit value generators of template variables (password:N, hex:N, base64:N, uuid, jwt) and the random source they draw from.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

/** n random bytes; production uses the system's CSPRNG, tests a seeded one (seededRandom) */
export type RandomSource = (n: number) => Buffer;

export const systemRandom: RandomSource = (n) => randomBytes(n);

/** a deterministic source for tests: SHA-256 of the seed and a counter, block after block */
export function seededRandom(seed: string): RandomSource {
  let counter = 0;
  return (n) => {
    const out: Buffer[] = [];
    for (let have = 0; have < n; have += 32) out.push(createHash('sha256').update(`${seed}:${counter++}`).digest());
    return Buffer.concat(out).subarray(0, n);
  };
}

/** a parsed generator: what `generate:` names */
export type Generator =
  | { kind: 'password' | 'hex' | 'base64'; length: number }
  | { kind: 'uuid' }
  | { kind: 'jwt'; secret: string; claims: Record<string, unknown> };

const passwordAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** `generate:` as written (with `claims` beside it for jwt): the generator, or the reason it is not one */
export function parseGenerator(text: unknown, claims: unknown): Generator | string {
  if (typeof text !== 'string') return 'must be a string such as "password:32", "hex:32", "base64:32", "uuid" or "jwt:SECRET_VARIABLE"';
  if (text === 'uuid') return { kind: 'uuid' };
  const sized = /^(password|hex|base64):(\d{1,4})$/.exec(text);
  if (sized) {
    const length = Number(sized[2]);
    if (length < 8 || length > 1024) return `${sized[1]} length must be between 8 and 1024, not ${length}`;
    return { kind: sized[1] as 'password' | 'hex' | 'base64', length };
  }
  const jwt = /^jwt:([A-Za-z_][A-Za-z0-9_]{0,127})$/.exec(text);
  if (jwt) {
    if (claims !== undefined && (typeof claims !== 'object' || claims === null || Array.isArray(claims))) return 'claims must be an object';
    return { kind: 'jwt', secret: jwt[1], claims: (claims ?? {}) as Record<string, unknown> };
  }
  return `unknown generator "${text.slice(0, 40)}": one of password:N, hex:N, base64:N, uuid, jwt:VARIABLE`;
}

/** a password of `length` letters and digits drawn without modulo bias */
function password(length: number, random: RandomSource): string {
  let out = '';
  const limit = 256 - (256 % passwordAlphabet.length);
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      if (byte < limit && out.length < length) out += passwordAlphabet[byte % passwordAlphabet.length];
    }
  }
  return out;
}

function uuid(random: RandomSource): string {
  const b = Buffer.from(random(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** the value of one generator; `values`: the variables known so far (a jwt's secret among them) */
export async function generate(gen: Generator, random: RandomSource, values: Record<string, string>, now = new Date()): Promise<string> {
  switch (gen.kind) {
    case 'password': return password(gen.length, random);
    case 'hex': return random(Math.ceil(gen.length / 2)).toString('hex').slice(0, gen.length);
    case 'base64': return random(Math.ceil((gen.length * 3) / 4)).toString('base64').slice(0, gen.length);
    case 'uuid': return uuid(random);
    case 'jwt': {
      const secret = values[gen.secret];
      if (!secret) throw new Error(`the secret ${gen.secret} has no value`);
      const iat = Math.floor(now.getTime() / 1000);
      // the template's own iat and exp win; without them, issued now for ten years
      return new SignJWT({ iat, exp: iat + 10 * 365 * 86_400, ...gen.claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
    }
  }
}
