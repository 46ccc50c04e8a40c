import { NestedStack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The functions behind the HTTP API's routes, in a nested stack of their own: each brings four
 * resources (function, role, its policy, log group), so the main stack, near CloudFormation's
 * 500 with them, keeps room to grow. Only the functions move: the routes, their integrations and
 * Lambda permissions stay on the API in the main stack (OrderApi), which reaches each function
 * by its ARN (an output of this stack). Moving a route to another stack would create the new
 * route before deleting the old one, and API Gateway refuses a second route with the same key.
 * The table, queue URL, page and portal origins come in as parameters; each role still names
 * only that table and the parameters its routes declare (functionNeeds in infra/cdk/stack.ts).
 * Streamed routes' functions stay in the main stack: the portal's CloudFront names their
 * function URLs while they need the portal's origin (a cycle across stacks).
 */
export class RouteFunctions extends NestedStack {
  constructor(scope: Construct, id: string) {
    super(scope, id, { description: "The HTTP API routes' functions (their routes and integrations are on the API in the main stack)" });
  }
}
