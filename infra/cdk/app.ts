import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from '#shared/core/env';
import { readDeployConfig, type DeployConfig } from '#infra/cdk/config';
import { CryptoPayStack, SERVICE_NAME } from '#infra/cdk/stack';

/**
 * The CDK app `cdk synth` and `cdk deploy` run (see cdk.json). Settings come from context or
 * the environment (docs/deploy.md); the account and region from the AWS profile in use.
 */
const app = new App();

let config: DeployConfig;
try {
  config = readDeployConfig((key) => app.node.tryGetContext(key), process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

new CryptoPayStack(app, config.stackName, {
  config,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Tags.of(app).add('service', SERVICE_NAME);
// Every AwsSolutions finding fails the synth unless acknowledged, with a reason, next to its resource.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
