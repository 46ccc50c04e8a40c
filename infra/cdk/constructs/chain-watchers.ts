import { Duration, NestedStack, Validations } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { type CfnFunction, FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { DeployConfig } from '#infra/cdk/config';
import { ServiceAlarms } from '#infra/cdk/constructs/service-alarms';
import { type CallingFunction, constructId, ServiceFunction, type ServiceFunctionProps } from '#infra/cdk/constructs/service-function';
import { type FunctionCalls, WATCH_LEASE_SITES } from '#infra/cdk/permissions';
import { chainPartition } from '#shared/store/keys';
import { WATCH_DEMAND_PATTERN } from '#shared/store/watch-demand';

/** The chain watcher's folder: one function per chain or indexed source, scheduled every minute. */
export const WATCHER_FOLDER = 'watch-chain';

/** The function that starts an idle chain's watcher on its first checkout (the table stream, filtered to demand writes). */
export const WAKE_FOLDER = 'wake-watchers';

/** The function that passes each step of a chain in demand (a message of the step timer's queue) to the chain's watcher. */
export const TICK_FOLDER = 'tick-watchers';

/**
 * A tick is worth something for a few minutes at most: a line whose tick is lost is replaced by
 * the minute's scheduled run once its lease expires (shared/watchers/stepped.ts), so older ones
 * are dropped, not retried or dead-lettered.
 */
export const WATCH_TICK_RETENTION = Duration.minutes(5);

/** tick-watchers' memory, MB: it parses a message and makes one signed HTTP request. */
export const TICKER_MEMORY_MB = 128;

/**
 * Memory of a chain's watcher, MB. BTC and BCH get 512: a full block's step (3,500
 * transactions, over 10,000 outputs) measured +127 MB of heap and 403 MB of RSS through Core RPC
 * (`getblock` answers the whole block as one JSON document) and 1 to 2 s of CPU here, so 256 MB
 * would run out of memory on a full block and, with its 0.15 vCPU, miss the detection goal by
 * seconds (docs/performance.md, "Watcher memory"). Every other source's step is hundreds of
 * transfers at most (an EVM block's, or what reached our node or account): 256.
 */
export const WATCHER_MEMORY_MB: Readonly<Record<string, number>> = { BTC: 512, BCH: 512 };
export const watcherMemoryMb = (chain: string): number => WATCHER_MEMORY_MB[chain] ?? 256;

/**
 * The SSM parameters holding these chain sources' node URLs (with their credentials), by the
 * variable naming each (`BTC_RPC_URL_PARAMETER`, shared/chains/sources.ts): what a chain's
 * watcher reads, and what the `chain-sources` grant gives (every configured source's).
 */
export const chainSourceParameters = (sources: DeployConfig['chainSources']): Record<string, string> =>
  Object.fromEntries(sources.flatMap((source) => (source.urlParameter ? [[`${source.chain}_RPC_URL_PARAMETER`, source.urlParameter]] : [])));

/** The key of a chain's watcher in {@link ChainWatchers.functions}. */
export const watcherKey = (chain: string): string => `${WATCHER_FOLDER}-${chain.toLowerCase()}`;

export interface ChainWatchersProps {
  readonly config: DeployConfig;
  /** What each function's code calls (the stack's {@link FunctionCalls}). */
  readonly calls: FunctionCalls;
  /** Powertools service name (and the `service` dimension of the watchers' metrics). */
  readonly serviceName: string;
  /** Namespace of the watchers' EMF metrics (UnhealthyCurrencies, UnmatchedPayments). */
  readonly metricsNamespace: string;
  /** The main stack's table: CDK passes its name and ARNs in as parameters of this stack. */
  readonly table: ITableV2;
  /** Variables every function of the service gets beside the deploy settings (the page and queue URLs). */
  readonly environment: Readonly<Record<string, string>>;
  /** The main stack's alarm topic: these alarms notify it too. */
  readonly alarmTopic: ITopic;
}

/** What {@link ChainWatchers.addFunction} needs beside what every function here shares. */
export type WatchersFunctionProps = Pick<ServiceFunctionProps, 'folder' | 'tableAccess' | 'timeout' | 'memorySize' | 'parameters' | 'environment'>;

/**
 * The chain watchers in a nested stack of their own: per chain (or indexed source) a
 * watch-chain function, its schedule, its role and log group; one source-health alarm for all
 * of them (a failing, silent or lagging watcher makes its source unhealthy). About ten resources a source, so with every network configured they would
 * take the main stack past CloudFormation's 500 resources; here they grow without touching it.
 * The table, queue URL, page URL and alarm topic come from the main stack as parameters, and
 * each function's role still names only that table and its own SSM parameter.
 *
 * Functions that serve the watchers (the stream-triggered waker) belong here too:
 * {@link addFunction} builds one with the same settings and an error alarm,
 * {@link grantInvoke} lets it start the watchers, {@link functionNames} tells it which.
 */
export class ChainWatchers extends NestedStack {
  /** Every function of this stack by key: `watch-chain-btc`, ... (see {@link watcherKey}), and any added. */
  readonly functions = new Map<string, ServiceFunction>();
  /** The watched chains and sources, in the order their watchers were made. */
  readonly chains: readonly string[];
  readonly alarms: ServiceAlarms;
  private readonly settings: ChainWatchersProps;

  constructor(scope: Construct, id: string, props: ChainWatchersProps) {
    super(scope, id, { description: 'Chain watchers: one watch-chain function per watched chain or source, with its schedule and alarms' });
    this.settings = props;
    const { config } = props;
    this.alarms = new ServiceAlarms(this, 'Alarms', { topic: props.alarmTopic });
    this.chains = [
      ...config.chainSources.map((source) => this.addWatcher(source.chain, chainSourceParameters([source]))),
      // Lightning settlements and EOS transfers (and TRON, Solana): the same function, schedule and alarms.
      ...config.indexedSources.map((chain) => this.addWatcher(chain, chain === 'LBTC' ? config.lightningParameters : chain === 'TON' ? config.tonParameters : {})),
    ];
    // One alarm for every source (each watcher counts them all), and one for payments no invoice
    // takes where the money is a buyer's (every watcher's but LBTC's, whose are other applications'
    // invoices: a block chain's whose order is gone or whose invoice refuses it too).
    this.alarms.alarmOnSourceHealth('SourceHealth', this.metrics);
    if (config.chainSources.length > 0 || config.indexedSources.some((chain) => chain !== 'LBTC')) this.alarms.alarmOnUnmatchedPayments('UnmatchedPayments', this.metrics);
    this.waker = this.addWaker();
    this.ticker = this.addTicker();
  }

  /** wake-watchers: see {@link addWaker}. */
  readonly waker: ServiceFunction;
  /** tick-watchers: see {@link addTicker}. */
  readonly ticker: ServiceFunction;
  /** The step timer (shared/watchers/ticks.ts): each watcher sends its chain's next step here. */
  private tickQueue?: Queue;

  /** The watchers' chains -> their function names (deploy-time tokens), for a function that starts them. */
  functionNames(): Record<string, string> {
    return Object.fromEntries(this.chains.map((chain) => [chain, this.functions.get(watcherKey(chain))!.function.functionName]));
  }

  /** Lets `fn` invoke every watcher function (those ARNs only, no versions or aliases), as its code does. */
  grantInvoke(fn: CallingFunction): void {
    fn.allow({ resource: 'watchers', arns: this.chains.map((chain) => this.functions.get(watcherKey(chain))!.function.functionArn) });
  }

  /** The step timer's queue (made with the first watcher). */
  get ticks(): Queue | undefined {
    return this.tickQueue;
  }

  /**
   * A function of functions/ in this stack with the service's settings (log level, the deploy
   * settings, page and queue URLs, the table at `tableAccess`) and, unless `alarmOnErrors` is
   * false (the watchers: the source-health alarm covers them), an alarm on its errors.
   */
  addFunction(key: string, props: WatchersFunctionProps, alarmOnErrors = true): ServiceFunction {
    const fn = new ServiceFunction(this, constructId(key), {
      calls: this.settings.calls,
      serviceName: this.settings.serviceName,
      logLevel: this.settings.config.logLevel,
      table: this.settings.table,
      ...props,
      environment: { ...this.settings.config.handlerEnvironment, ...this.settings.environment, ...props.environment },
    });
    this.functions.set(key, fn);
    if (alarmOnErrors) this.alarms.alarmOnErrors(`${constructId(key)}Errors`, fn.function, `${key} invocations are failing`);
    return fn;
  }

  /**
   * wake-watchers: the table stream, filtered to writes of a chain's watch demand, starts that
   * chain's watcher asynchronously when the chain was idle and no run holds its lease
   * (shared/watchers/wake.ts). It reads the stream (the event source's grant), the lease's
   * `lease_until` in the watched chains' partitions (GetItem, that attribute only) and invokes
   * the watcher functions; nothing else. Only new records matter (LATEST), and a wake is worth
   * something only for a minute, until the scheduled run: a failing record is tried twice more
   * and dropped after 2 minutes (its errors alarm fires), never retried for the stream's 24 hours.
   */
  private addWaker(): ServiceFunction {
    const { table } = this.settings;
    const fn = this.addFunction(WAKE_FOLDER, {
      folder: WAKE_FOLDER,
      tableAccess: 'none',
      memorySize: 256,
      timeout: Duration.seconds(30),
      environment: { TABLE_NAME: table.tableName, WATCHER_FUNCTIONS: this.toJsonString(this.functionNames()) },
    });
    fn.allow({
      resource: 'table',
      arns: [table.tableArn],
      actions: ['dynamodb:GetItem'],
      sites: WATCH_LEASE_SITES,
      conditions: {
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': this.chains.map(chainPartition), 'dynamodb:Attributes': ['PK', 'SK', 'lease_until'] },
        StringEqualsIfExists: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    });
    fn.function.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        bisectBatchOnError: true,
        retryAttempts: 2,
        maxRecordAge: Duration.minutes(2),
        reportBatchItemFailures: true,
        // The same pattern the local stream poller applies (shared/aws/lambda-event-filter.ts).
        filters: [FilterCriteria.filter(WATCH_DEMAND_PATTERN)],
      }),
    );
    this.grantInvoke(fn);
    return fn;
  }

  /**
   * The step timer's queue, made with the first watcher: a chain in demand is stepped by one
   * short invocation per step, and each sends the next as a message delayed by
   * WATCH_INTERVAL_SECONDS (shared/watchers/stepped.ts), so no invocation waits between polls.
   * One queue for every chain (an SQS event source long-polls all the time: one costs a few cents
   * a month idle, one per chain would be most of the idle bill).
   */
  private timerQueue(): Queue {
    if (this.tickQueue) return this.tickQueue;
    this.tickQueue = new Queue(this, 'WatchTicks', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: WATCH_TICK_RETENTION,
      // Longer than tick-watchers' timeout (AWS's rule for an event source), and a failed invoke comes back soon.
      visibilityTimeout: Duration.seconds(30),
    });
    Validations.of(this.tickQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'A watch tick older than a few minutes is worth nothing: the minute schedule replaces a lost line (shared/watchers/stepped.ts); it expires, no dead-letter queue.',
    });
    return this.tickQueue;
  }

  /**
   * tick-watchers: the step timer's queue (its event source, partial batch responses) invokes
   * the chain's watch-chain function with each tick, asynchronously (shared/watchers/ticks.ts).
   * It reads nothing and writes nothing else: no table access.
   */
  private addTicker(): ServiceFunction {
    const fn = this.addFunction(TICK_FOLDER, {
      folder: TICK_FOLDER,
      tableAccess: 'none',
      memorySize: TICKER_MEMORY_MB,
      timeout: Duration.seconds(10),
      environment: { WATCHER_FUNCTIONS: this.toJsonString(this.functionNames()) },
    });
    fn.function.addEventSource(new SqsEventSource(this.timerQueue(), { batchSize: 10, reportBatchItemFailures: true }));
    this.grantInvoke(fn);
    return fn;
  }

  private get metrics(): { namespace: string; service: string } {
    return { namespace: this.settings.metricsNamespace, service: this.settings.serviceName };
  }

  /**
   * A chain's (or an indexed source's) watcher: started every minute (an idle look, or a line of
   * steps when the chain is in demand and none holds it), by wake-watchers, and by tick-watchers
   * for each step of the line (shared/watchers/stepped.ts). Reserved concurrency 2: the minute's
   * run and a step of the line may overlap (the minute's run then leaves the chain to the line);
   * the cursor's conditional writes make any overlap harmless anyway. A node's URL (with its credentials) is read from its SSM parameter, which only
   * this function may read.
   */
  private addWatcher(chain: string, parameters: Readonly<Record<string, string>>): string {
    const key = watcherKey(chain);
    const queue = this.timerQueue();
    const fn = this.addFunction(
      key,
      {
        folder: WATCHER_FOLDER,
        tableAccess: 'write',
        // Steps again at once while behind for 30 s at most, and a step in flight then still has 60 s.
        timeout: Duration.minutes(2),
        memorySize: watcherMemoryMb(chain),
        environment: { WATCH_CHAIN: chain, WATCH_TICK_QUEUE_URL: queue.queueUrl },
        parameters,
      },
      false,
    );
    fn.allow({ resource: 'watch-ticks', arns: [queue.queueArn] });
    (fn.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions = 2;
    fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    // No retries: the next run does the same work anyway.
    const every = Duration.minutes(1);
    new Rule(this, `${constructId(key)}Schedule`, {
      description: `Runs ${key} every ${every.toHumanString()}`,
      schedule: Schedule.rate(every),
      targets: [new LambdaTarget(fn.function, { retryAttempts: 0 })],
    });
    return chain;
  }
}
