// Deploy keys made for a stack name: an ed25519 pair in OpenSSH format, the private half sealed and only ever handed to git, its store and expiry.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Db, SecretsApi } from '../../sdk/index.ts';

export interface DeployKeyView { stack: string; publicKey: string; fingerprint: string; createdAt: string; expiresAt: string | null }

const uint32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
/** an SSH wire string: a 32-bit length, then the bytes */
const sshString = (value: Buffer | string) => {
  const bytes = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([uint32(bytes.length), bytes]);
};

/**
 * A new ed25519 pair: the public key as an authorized_keys line, its SHA256 fingerprint as ssh-keygen -l prints it, and
 * the private key in the unencrypted openssh-key-v1 format ssh reads. Made in this process: nothing touches a file or an argument list.
 */
function makeKeyPair(comment: string): { publicKey: string; fingerprint: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let secret = Buffer.concat([check, check, blob, sshString(Buffer.concat([seed, pub])), sshString(comment)]);
  // padded with 1, 2, 3… to the cipher's block size (8 for "none")
  const pad = (8 - (secret.length % 8)) % 8;
  secret = Buffer.concat([secret, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), sshString('none'), sshString('none'), sshString(''), uint32(1), sshString(blob), sshString(secret)]);
  const lines = body.toString('base64').match(/.{1,70}/g)!;
  seed.fill(0);
  return {
    publicKey: `ssh-ed25519 ${blob.toString('base64')} ${comment}`,
    fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
  };
}

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));

export function createDeployKeys(db: Db, secrets: SecretsApi, settings: { expiresAfterMs: () => number; comment: (stack: string) => string }) {
  /** a key no source took within the expiry is gone; one taken stays until the stack goes or the next key replaces it */
  const live = `(used_at IS NOT NULL OR created_at > now() - make_interval(secs => $2::double precision / 1000))`;
  const viewOf = (r: Record<string, unknown>): DeployKeyView => {
    const createdAt = iso(r.created_at)!;
    return {
      stack: r.stack as string, publicKey: r.public_key as string, fingerprint: r.fingerprint as string, createdAt,
      expiresAt: r.used_at ? null : new Date(Date.parse(createdAt) + settings.expiresAfterMs()).toISOString(),
    };
  };
  /** forgets the keys no source took in time */
  async function sweep(): Promise<number> {
    return (await db.query(`DELETE FROM stack_deploy_keys WHERE NOT ${live.replace('$2', '$1')}`, [settings.expiresAfterMs()])).rowCount;
  }
  return {
    sweep,
    /** makes the stack's key, replacing any earlier one; a source that uses the earlier one fetches with the new one from now on */
    async make(stack: string): Promise<DeployKeyView> {
      // the expired ones go here too, not only on the hourly sweep
      await sweep();
      const pair = makeKeyPair(settings.comment(stack));
      const sealed = secrets.seal(pair.privateKey);
      return db.tx(async (tx) => {
        const { rows } = await tx.query(
          `INSERT INTO stack_deploy_keys (stack, public_key, fingerprint, private_sealed) VALUES ($1, $2, $3, $4)
           ON CONFLICT (stack) DO UPDATE SET public_key = EXCLUDED.public_key, fingerprint = EXCLUDED.fingerprint,
             private_sealed = EXCLUDED.private_sealed, created_at = now(),
             used_at = CASE WHEN EXISTS (SELECT 1 FROM stack_sources s WHERE s.stack = $1 AND s.credentials_kind = 'deploy-key') THEN now() END
           RETURNING *`,
          [stack, pair.publicKey, pair.fingerprint, sealed]);
        await tx.query(`UPDATE stack_sources SET credentials_sealed = $2, updated_at = now() WHERE stack = $1 AND credentials_kind = 'deploy-key'`,
          [stack, secrets.seal(JSON.stringify({ kind: 'ssh-key', sshKey: pair.privateKey }))]);
        return viewOf(rows[0]);
      });
    },
    async get(stack: string): Promise<DeployKeyView | null> {
      const { rows } = await db.query(`SELECT * FROM stack_deploy_keys WHERE stack = $1 AND ${live}`, [stack, settings.expiresAfterMs()]);
      return rows[0] ? viewOf(rows[0]) : null;
    },
    /** the private half for a source write (sealed again by the source); null when none was made or it expired */
    async privateKey(stack: string): Promise<string | null> {
      const { rows } = await db.query(`SELECT private_sealed FROM stack_deploy_keys WHERE stack = $1 AND ${live}`, [stack, settings.expiresAfterMs()]);
      return rows[0] ? secrets.open(rows[0].private_sealed as string) : null;
    },
    /** a source took the key: it no longer expires (`conn`: the transaction of the source's write) */
    async markUsed(stack: string, conn: Db = db): Promise<void> {
      await conn.query('UPDATE stack_deploy_keys SET used_at = coalesce(used_at, now()) WHERE stack = $1', [stack]);
    },
    async remove(stack: string, conn: Db = db): Promise<void> {
      await conn.query('DELETE FROM stack_deploy_keys WHERE stack = $1', [stack]);
    },
  };
}
export type DeployKeys = ReturnType<typeof createDeployKeys>;
