// The checks of a password sign-in before its session opens: the password, a one-time password's replacement, the second factor.
import type { Db, Role } from '../../sdk/index.ts';
import { isProblem, problem } from '../../sdk/index.ts';
import { passwordProblem, verifyPassword } from './passwords.ts';
import type { TotpEnrolment, TwoFactor } from './totp.ts';

/** what a sign-in may carry beyond the password: the authenticator's code (or a recovery code), a new password */
export interface SignInSteps { code?: string; newPassword?: string }

/** what the checks read: the users table, the second factor and the sign-in rules */
export interface SignInAccount {
  db: Db;
  twoFactor: TwoFactor;
  requireTotp: boolean;
  /** why a password sign-in of this user is refused (enforced single sign-on), or null */
  passwordRefused: (user: { name: string; role: Role }) => string | null;
}

/**
 * The user once every step of Sessions.signIn passed (each refusal is its problem, in that order), with the recovery codes
 * of an enrolment this sign-in confirmed. Nothing is written but the second factor's own state; the caller sets the new
 * password and opens the session.
 */
export async function passSignInSteps(account: SignInAccount, username: string, password: string, steps: SignInSteps) {
  const { rows } = await account.db.query<{ id: number; name: string; role: Role; password_hash: string | null; disabled: boolean; must_change_password: boolean; enrolled: boolean }>(
    `SELECT id, name, role, password_hash, disabled, must_change_password, totp_enrolled_at IS NOT NULL AS enrolled FROM users WHERE name = $1`, [username]);
  const user = rows[0];
  if (!(await verifyPassword(password, user?.password_hash ?? null)) || !user || user.disabled) {
    throw problem(401, 'wrong user name or password', { code: 'sign-in-failed' });
  }
  const refused = account.passwordRefused(user);
  if (refused) throw problem(403, refused, { code: 'sso-required' });
  if (user.must_change_password) {
    if (steps.newPassword === undefined) {
      throw problem(401, 'this password was given by an admin for one sign-in: choose a new one (send it as newPassword with the same call)', { code: 'password-change-required' });
    }
    const bad = passwordProblem(steps.newPassword);
    if (bad) throw problem(400, bad, { code: 'weak-password' });
    if (steps.newPassword === password) throw problem(400, 'the new password must differ from the one-time password', { code: 'weak-password' });
  }
  let recoveryCodes: string[] | undefined;
  if (user.enrolled || account.requireTotp) {
    if (steps.code === undefined || (!user.enrolled && !(await account.twoFactor.pending(user.id)))) {
      if (user.enrolled) throw problem(401, 'enter the code of your authenticator app, or one of your recovery codes (send it as code with the same call)', { code: 'totp-required' });
      const totp: TotpEnrolment = await account.twoFactor.begin(user.id, user.name);
      throw problem(401, 'two-factor sign-in is required: add this secret to an authenticator app and send its current code as code with the same call', { code: 'totp-enrolment-required', extra: { totp } });
    }
    const passed = user.enrolled ? await account.twoFactor.verify(user.id, steps.code) : await account.twoFactor.confirm(user.id, steps.code).catch((err: unknown) => {
      if (isProblem(err) && err.code === 'totp-failed') return undefined;
      throw err;
    });
    if (!passed) throw problem(401, 'the code is wrong, or was used already', { code: 'totp-failed' });
    if (Array.isArray(passed)) recoveryCodes = passed;
  }
  return { user, recoveryCodes };
}
