import { type CfnElement, Duration, Names, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  type Function as LambdaFunction,
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import type { LogLevel } from '#infra/cdk/config';
import { aliasArgs } from '#infra/cdk/bundling';
import { type Allowance, allowedActions, type Call, callsOf, type FunctionCalls, QUOTA_SITES, READ_ACTIONS, TOKEN_USE_SITES } from '#infra/cdk/permissions';
import { functionEntry, LOCK_FILE, REPO_ROOT } from '#infra/cdk/paths';
import { FUNCTION_TIMEOUT_SECONDS } from '#shared/http/routes';

/** The construct id of a function folder or key: `watch-chain-btc` -> `WatchChainBtc`. */
export const constructId = (folder: string): string => folder.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());

import type { TableAccess } from '#shared/http/event-functions';

export type { TableAccess };

/**
 * A function whose role is granted what its code calls (infra/cdk/permissions.ts), as far as
 * each {@link Allowance} its wiring gives it lets: a queue's construct allows the queue, the
 * watchers their functions, and so on.
 */
export interface CallingFunction {
  readonly function: LambdaFunction;
  /** Grants the calls of the function's code that the allowance covers; the actions granted (none: no statement). */
  allow(allowance: Allowance): string[];
}

export interface ServiceFunctionProps {
  /** Folder under functions/ holding `handler.ts` (exporting `handler`). */
  readonly folder: string;
  /** What each folder's code calls (infra/cdk/function-calls.generated.ts): the role gets those calls its allowances cover. */
  readonly calls: FunctionCalls;
  readonly serviceName: string;
  readonly logLevel: LogLevel;
  readonly table: ITableV2;
  readonly tableAccess: TableAccess;
  /** Handler configuration besides TABLE_NAME (which the table grant sets). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Handler variable -> SSM parameter name; the function gets the name and may read only it. */
  readonly parameters?: Readonly<Record<string, string>>;
  /**
   * Items whose partition key starts with this prefix may be updated even with read-only table
   * access (a route function's request quota counters, shared/store/quotas.ts).
   */
  readonly writablePrefix?: string;
  /**
   * For a read-only function that authenticates API tokens: it may also set `last_used_at` on
   * token lookup items (partition `<tokenUsePrefix>...`), and nothing else of them.
   */
  readonly tokenUsePrefix?: string;
  /** Default 512 MB: the bundled SDK starts faster with the CPU share it brings. */
  readonly memorySize?: number;
  /** Default 10 s: well under HTTP API's 30 s integration limit. */
  readonly timeout?: Duration;
  readonly logRetention?: RetentionDays;
}

/**
 * One handler of functions/ as a Lambda: Node.js 22 on arm64, an ESM bundle made by the local
 * esbuild, JSON logs into its own log group, and a role holding only what the function's code
 * calls (infra/cdk/permissions.ts) within what it is allowed: its log group, the table as its
 * access says (read-only: no writes but its quota counters and its tokens' last use), the SSM
 * parameters it is given, and whatever its wiring allows ({@link allow}).
 */
export class ServiceFunction extends Construct implements CallingFunction {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  readonly tableAccess: TableAccess;
  readonly folder: string;
  /** The AWS calls the function's code can make, as the stack was told them. */
  readonly calls: readonly Call[];
  /** Every allowance given (the function's declaration of what it may reach), in order. */
  readonly allowances: Allowance[] = [];
  /** The SSM parameters the function is given (names): the `parameters` allowance's. */
  readonly parameterNames: readonly string[];

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.tableAccess = props.tableAccess;
    this.folder = props.folder;
    const table = props.calls[props.folder];
    if (!table) throw new Error(`functions/${props.folder} has no entry in infra/cdk/function-calls.generated.ts: run npm run permissions`);
    this.calls = callsOf(table);
    this.parameterNames = Object.values(props.parameters ?? {});

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      // The table is the record of every order; function logs are diagnostics that expire anyway.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // An own role instead of AWSLambdaBasicExecutionRole: that managed policy may write to every log group.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.folder}: its log group and ${{ none: 'no', read: 'read-only', write: 'read-write' }[props.tableAccess]} table access`,
    });
    this.logGroup.grantWrite(this.role);

    // The SSM parameters are read through the Parameters and Secrets extension (its own layer,
    // arm64), not an SDK client in the bundle (shared/aws/parameters.ts): functions given none,
    // or whose code reads none, get no layer. It calls SSM with this role; the grants are below.
    const hasParameters = this.parameterNames.length > 0 && this.calls.some((call) => call.resource === 'parameters');
    this.function = new NodejsFunction(this, 'Function', {
      paramsAndSecrets: hasParameters ? ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, { cacheSize: 20, logLevel: ParamsAndSecretsLogLevel.WARN }) : undefined,
      entry: functionEntry(props.folder),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: LOCK_FILE,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(FUNCTION_TIMEOUT_SECONDS),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      // Powertools reads AWS_LAMBDA_LOG_LEVEL too: keep both levels equal so neither drops lines.
      applicationLogLevelV2: ApplicationLogLevel[props.logLevel],
      systemLogLevelV2: SystemLogLevel.WARN,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
        // Stack traces point into the TypeScript sources, not the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        // ESM has no `require`; some CommonJS dependencies call it, so the bundle defines one.
        banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        mainFields: ['module', 'main'],
        target: 'node22',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Pin the SDK version the tests ran against instead of the runtime's copy; bundled and
        // minified it also loads faster than the runtime's unbundled one (docs/performance.md).
        bundleAwsSDK: true,
        // Lambda's credentials are always in the environment: bundle only the env provider.
        esbuildArgs: aliasArgs(),
        // The local esbuild (a dev dependency) bundles: no Docker on build machines.
        forceDockerBundling: false,
      },
    });

    if (props.tableAccess !== 'none') {
      // Items on the table, a Query also on the indexes where the code names one; a read-only
      // function none of the writes its bundle holds (shared middleware of write routes).
      const actions = props.tableAccess === 'read' ? READ_ACTIONS : undefined;
      this.allow({ resource: 'table', arns: [props.table.tableArn], actions });
      this.allow({ resource: 'indexes', arns: [`${props.table.tableArn}/index/*`], actions });
      if (props.tableAccess === 'read' && props.writablePrefix) {
        this.allow({
          resource: 'table',
          arns: [props.table.tableArn],
          actions: ['dynamodb:UpdateItem'],
          sites: QUOTA_SITES,
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${props.writablePrefix}*`] } },
        });
      }
      if (props.tableAccess === 'read' && props.tokenUsePrefix) {
        this.allow({
          resource: 'table',
          arns: [props.table.tableArn],
          actions: ['dynamodb:UpdateItem'],
          sites: TOKEN_USE_SITES,
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${props.tokenUsePrefix}*`] },
            'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['PK', 'SK', 'last_used_at'] },
          },
        });
      }
      this.function.addEnvironment('TABLE_NAME', props.table.tableName);
      const table = props.table.node.defaultChild as CfnElement;
      // In the table's own stack the ARN is its GetAtt; in a nested stack (the watchers') it is
      // the parameter CDK makes for it, named after the table's path (aws-cdk-lib core refs.ts).
      const tableArn = Stack.of(table) === Stack.of(this) ? `${Stack.of(table).getLogicalId(table)}.Arn` : `referenceto${Names.nodeUniqueId(table.node)}Arn`;
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${tableArn}>/index/*]`,
        reason: 'Queries on the GSIs of the service table (order lists, expiry and delivery sweeps) need index ARNs; the wildcard covers only the indexes of that one table.',
      });
    }
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime the service is designed, bundled (target node22) and tested for; moving to a newer runtime is a deliberate upgrade, not drift.',
    });

    const parameterArns: string[] = [];
    for (const [variable, parameterName] of Object.entries(props.parameters ?? {})) {
      const parameter = StringParameter.fromSecureStringParameterAttributes(this, `Parameter${variable}`, {
        parameterName,
      });
      parameterArns.push(parameter.parameterArn);
      this.function.addEnvironment(variable, parameterName);
    }
    // The extension's GetParameter, on exactly these; SecureStrings under the AWS-managed
    // aws/ssm key need no kms:Decrypt grant of their own.
    if (parameterArns.length > 0) this.allow({ resource: 'parameters', arns: parameterArns });
  }

  allow(allowance: Allowance): string[] {
    this.allowances.push(allowance);
    const actions = allowedActions(this.calls, allowance);
    if (actions.length > 0) {
      this.role.addToPrincipalPolicy(new PolicyStatement({ actions, resources: [...allowance.arns], ...(allowance.conditions ? { conditions: { ...allowance.conditions } } : {}) }));
    }
    return actions;
  }
}
