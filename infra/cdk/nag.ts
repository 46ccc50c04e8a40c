import { Aspects, CfnResource, type IAspect, Validations } from 'aws-cdk-lib';
import { rules } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The granular AwsSolutions rules: cdk-nag 3 reports (and matches acknowledgements) per finding. */
const GRANULAR_RULES = {
  'AwsSolutions-IAM4': rules.iam.IAMNoManagedPolicies,
  'AwsSolutions-IAM5': rules.iam.IAMNoWildcardPermissions,
} as const;

export type GranularRuleId = keyof typeof GRANULAR_RULES;

/**
 * Acknowledges every finding of a granular rule under `scope`, with one reason. Only for
 * resources aws-cdk-lib builds for us (the BucketDeployment handler): their findings name
 * values known only at synthesis (asset bucket names, logical ids), so they cannot be listed
 * by hand. Resources we write ourselves acknowledge each finding by its exact id.
 */
export function acknowledgeAllFindings(scope: IConstruct, ruleId: GranularRuleId, reason: string): void {
  const rule = GRANULAR_RULES[ruleId];
  const aspect: IAspect = {
    visit(node) {
      if (!CfnResource.isCfnResource(node)) return;
      const result = rule(node);
      if (!Array.isArray(result)) return;
      for (const finding of result) Validations.of(node).acknowledge({ id: `${ruleId}[${finding}]`, reason });
    },
  };
  Aspects.of(scope).add(aspect);
}
