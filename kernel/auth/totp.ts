// Two-factor sign-in: TOTP enrolment (RFC 6238, through otpauth), codes accepted once, and hashed one-time recovery codes.
import { randomInt } from 'node:crypto';
import type { Db, SecretsApi } from '../../sdk/index.ts';
import { problem } from '../../sdk/index.ts';
import { hashToken } from './tokens.ts';

/** what an authenticator app is shown: the secret as text, the otpauth:// URI, and that URI as a QR code (an SVG data URL) */
export interface TotpEnrolment { secret: string; otpauthUri: string; qrCode: string }

export interface TotpStatus { enrolled: boolean; enrolledAt: string | null; recoveryCodesLeft: number }

export const recoveryCodeCount = 10;
const period = 30;
const issuer = 'Dockwright';
// no 0/1/8/i/l/o: a code read off paper is typed back without guessing
const alphabet = 'abcdefghjkmnpqrstuvwxyz234567';

// otpauth and qrcode are loaded the first time a code is checked or an enrolment starts: most instances never need them
const otp = () => import('otpauth');

/** a recovery code: 16 characters of 29 (77 bits), shown in groups of four */
function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 16; i++) out += alphabet[randomInt(alphabet.length)];
  return out.match(/.{4}/g)!.join('-');
}

/** what is hashed: the code without its dashes, spaces or capitals, so `ABCD EFGH…` is the same code */
function recoveryHash(code: string): string {
  return hashToken(`recovery:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

export const isTotpCode = (code: string) => /^\d{6}$/.test(code.replace(/\s/g, ''));

interface Row { totp_secret: string | null; totp_pending: string | null; totp_enrolled_at: string | null; totp_last_step: string | null }

export class TwoFactor {
  constructor(private readonly db: Db, private readonly secrets: SecretsApi) {}

  async status(userId: number): Promise<TotpStatus> {
    const { rows: [row] } = await this.db.query<{ totp_enrolled_at: string | null; left: number }>(
      `SELECT u.totp_enrolled_at, (SELECT count(*) FROM recovery_codes r WHERE r.user_id = u.id AND r.used_at IS NULL)::int AS "left"
         FROM users u WHERE u.id = $1`, [userId]);
    if (!row) throw problem(404, 'no such user');
    return { enrolled: row.totp_enrolled_at !== null, enrolledAt: row.totp_enrolled_at, recoveryCodesLeft: row.totp_enrolled_at ? row.left : 0 };
  }

  async enrolled(userId: number): Promise<boolean> {
    return (await this.status(userId)).enrolled;
  }

  /** whether an enrolment was started and awaits its confirming code */
  async pending(userId: number): Promise<boolean> {
    const { rows: [row] } = await this.db.query<{ pending: boolean }>('SELECT totp_pending IS NOT NULL AS pending FROM users WHERE id = $1', [userId]);
    return row?.pending ?? false;
  }

  /** a new secret for the user's authenticator, kept sealed until a code confirms it (a second call replaces it) */
  async begin(userId: number, userName: string): Promise<TotpEnrolment> {
    const { Secret, TOTP } = await otp();
    const secret = new Secret({ size: 20 });
    const totp = new TOTP({ issuer, label: userName, secret, period, digits: 6, algorithm: 'SHA1' });
    await this.db.query('UPDATE users SET totp_pending = $2 WHERE id = $1', [userId, this.secrets.seal(secret.base32)]);
    const otpauthUri = totp.toString();
    const { default: qr } = await import('qrcode');
    const svg = await qr.toString(otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { secret: secret.base32, otpauthUri, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
  }

  /**
   * Confirms the pending secret with a code of it: the user is enrolled (any earlier enrolment replaced) and gets ten
   * new recovery codes, answered this once. 400 without a pending secret or for a wrong code.
   */
  async confirm(userId: number, code: string, conn: Db = this.db): Promise<string[]> {
    return conn.tx(async (tx) => {
      const { rows: [row] } = await tx.query<Row>('SELECT totp_secret, totp_pending, totp_enrolled_at, totp_last_step FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (!row?.totp_pending) throw problem(400, 'no enrolment was started: ask for a new secret first', { code: 'totp-not-started' });
      const step = await this.check(this.secrets.open(row.totp_pending), code, null);
      if (step === null) throw problem(400, 'the code does not match the new secret: check the clock of the device and try the current code', { code: 'totp-failed' });
      const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
      await tx.query(`UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_enrolled_at = now(), totp_last_step = $2 WHERE id = $1`, [userId, step]);
      await tx.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
      await tx.query('INSERT INTO recovery_codes (user_id, hash) SELECT $1, unnest($2::text[])', [userId, codes.map(recoveryHash)]);
      return codes;
    });
  }

  /**
   * A code of the user's authenticator (six digits, this step or one either side, never a step already used) or one of
   * its unused recovery codes, which is then used up. True when it signs in.
   */
  async verify(userId: number, code: string): Promise<boolean> {
    if (!isTotpCode(code)) {
      const { rowCount } = await this.db.query('UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND hash = $2 AND used_at IS NULL', [userId, recoveryHash(code)]);
      return rowCount === 1;
    }
    const { rows: [row] } = await this.db.query<Row>('SELECT totp_secret, totp_pending, totp_enrolled_at, totp_last_step FROM users WHERE id = $1', [userId]);
    if (!row?.totp_secret) return false;
    const step = await this.check(this.secrets.open(row.totp_secret), code, row.totp_last_step === null ? null : Number(row.totp_last_step));
    if (step === null) return false;
    // two sign-ins racing with one code: only the first moves the step on
    const { rowCount } = await this.db.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)', [userId, step]);
    return rowCount === 1;
  }

  /** ends the user's enrolment (an admin's reset, or the user's own): the secret, a pending one and the recovery codes */
  async reset(userId: number, conn: Db = this.db): Promise<boolean> {
    const { rowCount } = await conn.query(
      `UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_enrolled_at = NULL, totp_last_step = NULL
        WHERE id = $1 AND (totp_secret IS NOT NULL OR totp_pending IS NOT NULL)`, [userId]);
    await conn.query('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
    return rowCount === 1;
  }

  /** the time step the code belongs to (the current one ±1, for clocks a little off), newer than lastStep; null otherwise */
  private async check(secretBase32: string, code: string, lastStep: number | null): Promise<number | null> {
    const { Secret, TOTP } = await otp();
    const totp = new TOTP({ issuer, secret: Secret.fromBase32(secretBase32), period, digits: 6, algorithm: 'SHA1' });
    const token = code.replace(/\s/g, '');
    const delta = totp.validate({ token, window: 1 });
    if (delta === null) return null;
    const step = totp.counter() + delta;
    return lastStep !== null && step <= lastStep ? null : step;
  }
}
