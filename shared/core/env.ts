/**
 * Reading configuration from the environment, failing fast: a missing required value throws
 * at module load (cold start), never later with a silent default.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export function requiredString(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new ConfigError(`environment variable ${name} is required`);
  return value;
}

export function optionalString(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** A positive integer with a documented default (defaults are part of the product's docs). */
export function positiveInteger(env: Env, name: string, fallback: number): number {
  const raw = optionalString(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0 || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`environment variable ${name} must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}

export function flag(env: Env, name: string): boolean {
  const raw = optionalString(env, name);
  if (raw === undefined) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`environment variable ${name} must be true or false, got "${raw}"`);
}

/** A non-negative integer (0 allowed, e.g. to disable a cache) with a documented default. */
export function nonNegativeInteger(env: Env, name: string, fallback: number): number {
  const raw = optionalString(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new ConfigError(`environment variable ${name} must be a non-negative integer, got "${raw}"`);
  }
  return Number(raw);
}

/**
 * Where a secret named `name` comes from: exactly one of `<name>_PARAMETER` (an SSM
 * SecureString's name, AWS), `<name>_FILE` (a file, local) or `<name>` (the value itself).
 */
export type SecretSource = { kind: 'parameter' | 'file' | 'value'; ref: string; variable: string };

const SECRET_KINDS = [
  ['_PARAMETER', 'parameter'],
  ['_FILE', 'file'],
  ['', 'value'],
] as const;

/** The variables that can name secret `name`: its SSM parameter, its file, or the value itself. */
export const secretVariables = (name: string): string[] => SECRET_KINDS.map(([suffix]) => `${name}${suffix}`);

/** The one source of the secret `name`, if any; two sources for one secret is a ConfigError. */
export function secretSource(env: Env, name: string): SecretSource | undefined {
  const found: SecretSource[] = [];
  for (const [suffix, kind] of SECRET_KINDS) {
    const ref = optionalString(env, `${name}${suffix}`);
    if (ref !== undefined) found.push({ kind, ref, variable: `${name}${suffix}` });
  }
  if (found.length > 1) throw new ConfigError(`set only one of ${found.map((source) => source.variable).join(', ')}`);
  return found[0];
}
