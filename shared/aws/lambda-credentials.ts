import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild
 * alias, see infra/cdk/bundling.ts). Lambda always hands a function its role's credentials in
 * the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so the
 * default chain's other sources (SSO, STS web identity, INI files, IMDS, ...) are dead weight:
 * their clients are about 135 KB of every minified bundle. The clients call
 * `defaultProvider(config)` and get a provider; this one reads the environment only. Tests and
 * the local runtime run unbundled and keep the SDK's own chain (also env-first).
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
