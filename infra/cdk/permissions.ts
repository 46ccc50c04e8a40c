import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '#infra/cdk/paths';

/**
 * What each function's code can call in AWS, read from its bundle, and the IAM actions those
 * calls need. The stack grants a function the calls its code makes, as far as its declaration
 * lets it (its routes' `access` and `grants`, its wiring to queues and parameters: see
 * {@link Allowance}); tests/infra/permissions.test.ts proves the deployed roles hold exactly
 * that, from a fresh scan of the bundles. The calls the stack reads are
 * infra/cdk/function-calls.generated.ts, written by `npm run permissions` (infra/cdk/build-permissions.ts).
 */

/**
 * The things a function's calls reach, by what the code names: the table's items, its indexes
 * (a Query naming an IndexName), a queue by the way the code addresses it, the SSM parameters
 * (every one the function is given), the watcher functions, and SES's sending identity.
 */
export type Resource =
  | 'table'
  | 'indexes'
  | 'callback-queue'
  | 'callback-dead-letters'
  | 'email-queue'
  | 'email-dead-letters'
  | 'renewal-queue'
  | 'renewal-dead-letters'
  | 'watch-ticks'
  | 'parameters'
  | 'watchers'
  | 'email-sending';

/** One AWS call a bundle can make: the IAM action, what it reaches, and where the code makes it (`file#declaration`). */
export interface Call {
  readonly action: string;
  readonly resource: Resource;
  readonly site: string;
}

/** What a command class needs: its IAM actions (a transaction's depend on its items), and what it reaches. */
interface CommandNeeds {
  readonly actions: readonly string[] | 'transaction';
  /** `items`: the table's items (a Query: the table, and its indexes where the code names one); `queue`: the queue its call site addresses. */
  readonly reaches: 'items' | 'queue' | 'email-sending' | 'parameters';
}

const dynamodb = (action: string): CommandNeeds => ({ actions: [`dynamodb:${action}`], reaches: 'items' });
const sqs = (action: string): CommandNeeds => ({ actions: [`sqs:${action}`], reaches: 'queue' });

/**
 * Each AWS SDK v3 command class a bundle may construct, by package, and what IAM checks for it.
 * The Document client's commands are the low-level ones with marshalling: the same actions. A
 * transaction is authorised per item (Put, Update, Delete, ConditionCheck), so its actions are
 * those of the items its code builds; a batch of sends needs sqs:SendMessage.
 */
const SDK_COMMANDS: Readonly<Record<string, Readonly<Record<string, CommandNeeds>>>> = {
  '@aws-sdk/lib-dynamodb': {
    GetCommand: dynamodb('GetItem'),
    PutCommand: dynamodb('PutItem'),
    UpdateCommand: dynamodb('UpdateItem'),
    DeleteCommand: dynamodb('DeleteItem'),
    QueryCommand: dynamodb('Query'),
    ScanCommand: dynamodb('Scan'),
    BatchGetCommand: dynamodb('BatchGetItem'),
    BatchWriteCommand: dynamodb('BatchWriteItem'),
    TransactGetCommand: dynamodb('GetItem'),
    TransactWriteCommand: { actions: 'transaction', reaches: 'items' },
  },
  '@aws-sdk/client-dynamodb': {
    GetItemCommand: dynamodb('GetItem'),
    PutItemCommand: dynamodb('PutItem'),
    UpdateItemCommand: dynamodb('UpdateItem'),
    DeleteItemCommand: dynamodb('DeleteItem'),
    QueryCommand: dynamodb('Query'),
    ScanCommand: dynamodb('Scan'),
    BatchGetItemCommand: dynamodb('BatchGetItem'),
    BatchWriteItemCommand: dynamodb('BatchWriteItem'),
    TransactGetItemsCommand: dynamodb('GetItem'),
    TransactWriteItemsCommand: { actions: 'transaction', reaches: 'items' },
  },
  '@aws-sdk/client-sqs': {
    SendMessageCommand: sqs('SendMessage'),
    SendMessageBatchCommand: sqs('SendMessage'),
    ChangeMessageVisibilityCommand: sqs('ChangeMessageVisibility'),
    ChangeMessageVisibilityBatchCommand: sqs('ChangeMessageVisibility'),
    DeleteMessageCommand: sqs('DeleteMessage'),
    DeleteMessageBatchCommand: sqs('DeleteMessage'),
    ReceiveMessageCommand: sqs('ReceiveMessage'),
  },
  '@aws-sdk/client-sesv2': { SendEmailCommand: { actions: ['ses:SendEmail'], reaches: 'email-sending' } },
  '@aws-sdk/client-ssm': {
    GetParameterCommand: { actions: ['ssm:GetParameter'], reaches: 'parameters' },
    GetParametersCommand: { actions: ['ssm:GetParameters'], reaches: 'parameters' },
  },
};

/** The IAM action of each kind of transaction item (the keys of a TransactItems entry). */
const TRANSACTION_ITEMS: Readonly<Record<string, string>> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/**
 * The clients the project signs or reaches by hand instead of through an SDK command, by the
 * declaration that makes the call, and the mark in its code that gives one away: a bundle
 * holding the declaration can make the call. Any other code bearing a mark fails the scan, so
 * a new hand-made client must be named here.
 */
const HAND_MADE_CLIENTS: readonly { readonly site: string; readonly mark: RegExp; readonly action: string; readonly resource: Resource }[] = [
  // Lambda Invoke (InvocationType Event) as one SigV4-signed POST: the watchers' waker and ticker.
  { site: 'shared/aws/lambda-invoke.ts#asyncInvoker', mark: /\bnew SignatureV4\(/, action: 'lambda:InvokeFunction', resource: 'watchers' },
  // The Parameters and Secrets extension's local endpoint calls SSM GetParameter with the function's role.
  { site: 'shared/aws/parameters.ts#readSecureParameter', mark: /\/systemsmanager\/parameters\/get/, action: 'ssm:GetParameter', resource: 'parameters' },
];

/**
 * How the code names the queues it calls: the call sites of SQS commands, each with the queue it
 * addresses. `job-queue` and `job-dead-letters` are the delayed-job pipeline's (a JobQueue's
 * `url()` and `deadLetterUrl()`): they reach the queues of every {@link JOB_QUEUES} entry the
 * bundle holds. An SQS command anywhere else fails the scan.
 */
export const QUEUE_SITES: Readonly<Record<string, 'job-queue' | 'job-dead-letters' | Resource>> = {
  'shared/jobs/delayed-jobs.ts#enqueueJob': 'job-queue',
  'shared/jobs/delayed-jobs.ts#enqueueJobs': 'job-queue',
  'shared/jobs/delayed-jobs.ts#postponeJob': 'job-queue',
  'shared/jobs/delayed-jobs.ts#deadLetterJob': 'job-dead-letters',
  'shared/watchers/ticks.ts#queueTickSender': 'watch-ticks',
};

/**
 * The delayed-job pipeline's queues (shared/jobs/delayed-jobs.ts JobQueue), by the declaration
 * that names them. A `JobQueue` declared anywhere else fails the scan.
 */
const JOB_QUEUES: Readonly<Record<string, { readonly queue: Resource; readonly deadLetters: Resource }>> = {
  'shared/callbacks/queue.ts#callbackQueue': { queue: 'callback-queue', deadLetters: 'callback-dead-letters' },
  'shared/email/queue.ts#emailQueue': { queue: 'email-queue', deadLetters: 'email-dead-letters' },
  'shared/services/renewal-queue.ts#renewalQueue': { queue: 'renewal-queue', deadLetters: 'renewal-dead-letters' },
};

/** Table actions that change nothing: what a read-only function may be granted. */
export const READ_ACTIONS: readonly string[] = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:Scan'];

/** The packages whose imports the scan reads: the AWS SDK's clients (a value imported from one must be a known command, client or error). */
const CLIENT_PACKAGE = /^@aws-sdk\/(client-[\w-]+|lib-dynamodb)$/;
/** What else a client package may give the code without hiding a call: its client, its errors. */
const HARMLESS_IMPORT = /(Client|Exception|Error)$/;
/** The SigV4 signers: imported under their own name only, so that a hand-made client's mark finds every use. */
const SIGNER_PACKAGE = /^@(smithy|aws-sdk)\/signature-v4/;

/** One module of a bundle: its path (as esbuild's comment names it) and its code as kept after tree-shaking. */
interface Section {
  readonly file: string;
  readonly lines: readonly string[];
}

/**
 * The sections of an unminified esbuild bundle: each module's kept code follows a `// <path>`
 * comment. Only the project's own modules (shared/, functions/) are returned: the SDK is left
 * out of the bundles the scan reads (see {@link bundleCalls}).
 */
function sectionsOf(code: string): Section[] {
  const sections: { file: string; lines: string[] }[] = [];
  let current: { file: string; lines: string[] } | undefined;
  for (const line of code.split('\n')) {
    const header = /^\/\/ ((?:shared|functions)\/\S+\.ts)$/.exec(line);
    if (header) sections.push((current = { file: header[1]!, lines: [] }));
    else if (/^\/\/ \S+\.(?:ts|js|mjs|cjs|json)$/.test(line)) current = undefined;
    else current?.lines.push(line);
  }
  return sections;
}

/**
 * The top-level declaration each line of a section belongs to. esbuild writes a module's kept
 * top-level statements unindented, and renames a declaration whose name another module of the
 * bundle also uses (`release` -> `release2`): the name is given as the module's source has it.
 */
function declarationsOf(section: Section, source: string): string[] {
  let current = '';
  return section.lines.map((line) => {
    const declared = /^(?:async )?(?:function\*? ?|var |let |const |class )([\w$]+)/.exec(line)?.[1];
    if (declared) {
      const original = declared.replace(/\d+$/, '');
      const inSource = (name: string) => new RegExp(`(?:function\\*?\\s*|const\\s+|let\\s+|var\\s+|class\\s+)${name.replace(/\$/g, '\\$')}\\b`).test(source);
      current = inSource(declared) || !inSource(original) ? declared : original;
    }
    return current;
  });
}

/** The named imports of a bundle: local name -> the package and the name it exports. */
function importsOf(code: string): Map<string, { from: string; name: string }> {
  const imports = new Map<string, { from: string; name: string }>();
  for (const [, names, from] of code.matchAll(/^import\s*\{([^}]*)\}\s*from\s*["']([^"']+)["'];?$/gm)) {
    for (const entry of names!
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)) {
      const [name, local] = entry.split(/\s+as\s+/) as [string, string | undefined];
      imports.set(local ?? name, { from: from!, name });
    }
  }
  return imports;
}

/**
 * Every AWS call one function's bundle can make. `code` is the bundle unminified with the
 * packages left as imports (as {@link bundleCalls} builds it); `source` reads a project file.
 * The scan is strict: an SDK command it has no IAM action for, an SDK value that could hide a
 * call (a paginator, an aggregated client), an SQS call at a site {@link QUEUE_SITES} does not
 * know, or a hand-made client's mark outside {@link HAND_MADE_CLIENTS} throws, naming the file.
 */
export function scanBundle(code: string, source: (file: string) => string = (file) => readFileSync(join(REPO_ROOT, file), 'utf8')): Call[] {
  for (const [, from] of code.matchAll(/^import\s+(?:\*\s*as\s+[\w$]+|[\w$]+)\s*(?:,[^;]*)?from\s*["']([^"']+)["']/gm)) {
    if (CLIENT_PACKAGE.test(from!) || SIGNER_PACKAGE.test(from!)) throw new Error(`the bundle imports ${from} whole or by default: import its commands by name, so the scan can tell which it makes`);
  }
  for (const [, , from] of code.matchAll(/\bimport\(\s*(["'])([^"']+)\1/g)) {
    if (CLIENT_PACKAGE.test(from!) || SIGNER_PACKAGE.test(from!)) throw new Error(`the bundle imports ${from} at run time: import its commands by name, so the scan can tell which it makes`);
  }
  const imports = importsOf(code);
  for (const [local, { from, name }] of imports) {
    if (CLIENT_PACKAGE.test(from) && !name.endsWith('Command') && !HARMLESS_IMPORT.test(name)) {
      throw new Error(`the bundle imports ${name} from ${from}: only command classes can be scanned for the calls they make (as ${local})`);
    }
    if (SIGNER_PACKAGE.test(from) && !(local === name || (local.startsWith(name) && /^\d+$/.test(local.slice(name.length)))))
      throw new Error(`the bundle imports ${name} from ${from} as ${local}: import it under its own name`);
  }
  // Each command class imported, with how to find its uses and its constructions in a line.
  const commands = [...imports]
    .filter(([, imported]) => CLIENT_PACKAGE.test(imported.from) && imported.name.endsWith('Command'))
    .map(([local, imported]) => {
      const name = local.replace(/\$/g, '\\$');
      return { local, imported, use: new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, 'g'), made: new RegExp(`\\bnew ${name}\\(`, 'g') };
    });
  const sections = sectionsOf(code);
  for (const section of sections) {
    for (const [, name] of source(section.file).matchAll(/(?:const|let|var)\s+([\w$]+)\s*:\s*JobQueue\s*=/g)) {
      if (!JOB_QUEUES[`${section.file}#${name}`]) throw new Error(`${section.file}#${name} is a job queue the scan does not know: name it in JOB_QUEUES with its queues`);
    }
  }
  const kept = sections.map((section) => ({ section, declarations: declarationsOf(section, source(section.file)) }));
  const declared = new Set(kept.flatMap(({ section, declarations }) => declarations.map((declaration) => `${section.file}#${declaration}`)));
  const projectCode = sections.flatMap((section) => section.lines).join('\n');
  const transactionActions = [...new Set([...projectCode.matchAll(/(?:[{,]|^)\s*(Put|Update|Delete|ConditionCheck)\s*:/gm)].map((match) => TRANSACTION_ITEMS[match[1]!]!))];
  // Any mention (a key, a shorthand, a parameter): a Query the scan cannot tell apart may use an index.
  const namesIndexes = /\bIndexName\b/.test(projectCode);
  const jobQueues = Object.entries(JOB_QUEUES)
    .filter(([site]) => declared.has(site))
    .map(([, queues]) => queues);

  const calls: Call[] = [];
  const add = (action: string, resource: Resource, site: string) => calls.push({ action, resource, site });
  for (const { section, declarations } of kept) {
    section.lines.forEach((line, index) => {
      const site = `${section.file}#${declarations[index]}`;
      for (const client of HAND_MADE_CLIENTS) {
        if (client.mark.test(line) && site !== client.site) throw new Error(`${site} reaches AWS by hand (${client.mark}): name it in HAND_MADE_CLIENTS with the action it needs`);
      }
      if (!line.startsWith('import ')) {
        for (const { local, imported, use, made } of commands) {
          if (line.includes(local) && (line.match(use)?.length ?? 0) > (line.match(made)?.length ?? 0)) {
            throw new Error(`${site} uses ${imported.name} other than by constructing it: the scan can only follow \`new ${imported.name}(...)\``);
          }
        }
      }
      for (const [, local] of line.matchAll(/\bnew ([\w$]+)\(/g)) {
        const imported = imports.get(local!);
        if (!imported || !CLIENT_PACKAGE.test(imported.from) || !imported.name.endsWith('Command')) continue;
        const needs = SDK_COMMANDS[imported.from]?.[imported.name];
        if (!needs) throw new Error(`${site} makes a ${imported.name} of ${imported.from}: add its IAM actions to SDK_COMMANDS`);
        let actions = needs.actions;
        if (actions === 'transaction') {
          if (transactionActions.length === 0) throw new Error(`${site} writes a transaction, but the bundle builds no Put, Update, Delete or ConditionCheck item`);
          actions = transactionActions;
        }
        for (const action of actions) {
          if (needs.reaches === 'items') {
            add(action, 'table', site);
            if (action === 'dynamodb:Query' && namesIndexes) add(action, 'indexes', site);
          } else if (needs.reaches === 'queue') {
            const addressed = QUEUE_SITES[site];
            if (!addressed) throw new Error(`${site} calls SQS (${imported.name}): say in QUEUE_SITES which queue it addresses`);
            if (addressed === 'job-queue' || addressed === 'job-dead-letters') {
              for (const queues of jobQueues) add(action, addressed === 'job-queue' ? queues.queue : queues.deadLetters, site);
            } else add(action, addressed, site);
          } else add(action, needs.reaches, site);
        }
      }
    });
  }
  for (const client of HAND_MADE_CLIENTS) if (declared.has(client.site)) add(client.action, client.resource, client.site);
  return calls;
}

/** A function's calls as the generated file keeps them: `<action> <resource>` -> the sites making it, sorted. */
export type CallTable = Readonly<Record<string, readonly string[]>>;

/** Every function folder's {@link CallTable}. */
export type FunctionCalls = Readonly<Record<string, CallTable>>;

export function callTable(calls: readonly Call[]): CallTable {
  const table: Record<string, Set<string>> = {};
  for (const call of calls) (table[`${call.action} ${call.resource}`] ??= new Set()).add(call.site);
  return Object.fromEntries(
    Object.entries(table)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, sites]) => [key, [...sites].sort()]),
  );
}

export function callsOf(table: CallTable): Call[] {
  return Object.entries(table).flatMap(([key, sites]) => {
    const [action, resource] = key.split(' ') as [string, Resource];
    return sites.map((site) => ({ action, resource, site }));
  });
}

/**
 * The calls of these function folders' bundles (default: every folder of functions/), from one
 * esbuild build: unminified, tree-shaken as the Lambda bundles are, with every package left
 * as an import (only the project's code is scanned; the SDK's own modules would only repeat its
 * commands). A few seconds for all of them.
 */
export async function bundleCalls(folders: readonly string[]): Promise<Map<string, Call[]>> {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    absWorkingDir: REPO_ROOT,
    entryPoints: Object.fromEntries(folders.map((folder) => [folder, `functions/${folder}/handler.ts`])),
    outdir: join(REPO_ROOT, '.permissions-scan'),
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'packages-as-imports',
        setup(builder) {
          builder.onResolve({ filter: /^[^.#/]/ }, ({ path }) => ({ path, external: true }));
        },
      },
    ],
  });
  const byFolder = new Map<string, Call[]>();
  for (const file of outputFiles) {
    const folder = /([^/]+)\.js$/.exec(file.path)?.[1];
    if (!folder || !folders.includes(folder)) continue;
    try {
      byFolder.set(folder, scanBundle(file.text));
    } catch (error) {
      throw new Error(`functions/${folder}: ${(error as Error).message}`);
    }
  }
  return byFolder;
}

/**
 * What a function's declaration lets its role be granted of one resource: the calls its code
 * makes to `resource` (only `actions` of them, and only those made at `sites`, when given),
 * on `arns`, under `conditions`. The role gets a statement only when some call is left.
 */
export interface Allowance {
  readonly resource: Resource;
  readonly arns: readonly string[];
  readonly actions?: readonly string[];
  readonly sites?: readonly string[];
  readonly conditions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** Whether an allowance covers a call: its resource, and its actions and sites where it names them. */
export const covers = (allowance: Omit<Allowance, 'arns'>, call: Call): boolean =>
  call.resource === allowance.resource && (!allowance.actions || allowance.actions.includes(call.action)) && (!allowance.sites || allowance.sites.includes(call.site));

/** The actions of `calls` an allowance grants, sorted. */
export const allowedActions = (calls: readonly Call[], allowance: Omit<Allowance, 'arns'>): string[] => [...new Set(calls.filter((call) => covers(allowance, call)).map((call) => call.action))].sort();

/**
 * The sites of the calls a read-only function is granted with a condition that narrows them to
 * the items they may touch (ServiceFunction): a route's request quota counters, and an API
 * token's last use.
 */
export const QUOTA_SITES: readonly string[] = ['shared/store/quotas.ts#takeFromWindow'];
export const TOKEN_USE_SITES: readonly string[] = ['shared/store/api-tokens.ts#touchApiToken'];
/** wake-watchers' one read: a watched chain's lease (shared/store/watch-demand.ts). */
export const WATCH_LEASE_SITES: readonly string[] = ['shared/store/watch-demand.ts#watchLeaseHeld'];
