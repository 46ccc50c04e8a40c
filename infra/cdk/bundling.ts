import { join } from 'node:path';
import { REPO_ROOT } from '#infra/cdk/paths';

/**
 * Packages replaced when the Lambda bundles are built (esbuild `alias`), shared by the CDK
 * construct and the bundle bench so both build the same thing.
 */
export const LAMBDA_BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(REPO_ROOT, 'shared', 'aws', 'lambda-credentials.ts'),
};

/** The aliases as NodejsFunction `esbuildArgs` (`--alias:<package>=<path>`). */
export const aliasArgs = (aliases: Readonly<Record<string, string>> = LAMBDA_BUNDLE_ALIASES): Record<string, string> =>
  Object.fromEntries(Object.entries(aliases).map(([pkg, path]) => [`--alias:${pkg}`, path]));
