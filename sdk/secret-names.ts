// Which names look like they hold a secret (a variable, a setting, an environment entry): their values are hidden from readers and masked in text shown outside.

const secretName = /(pass|secret|token|key|private|credential|auth|salt|cert|cookie|session|dsn|database_url)/i;

/** true when a variable or setting of this name is taken for a secret */
export const looksSecret = (name: string): boolean => secretName.test(name);
