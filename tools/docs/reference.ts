/**
 * docs/reference.md, generated from the code so its tables cannot drift from it (issue 29):
 * the currencies and networks with their default confirmations, MugglePay's `pay_currency`
 * codes, the configuration variables with their defaults and whether the AWS stack takes them,
 * the error codes with their HTTP status, and the CLIs' commands and flags.
 *
 * Where the code exposes a value as data it is imported (the currency, network and pay-code
 * tables, the settings' declarations, the error classes). Where it exists only as code text (the
 * CLIs' usage text, which runs on import) the source file is read and matched, strictly:
 * a pattern that finds too little throws, so a refactor breaks the build of this file, not its truth.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAY_CURRENCIES, currency, chainOf, keyOf, requiredConfirmations } from '#shared/domain/currencies';
import { EVM_NETWORKS, evmCurrencies, networkName } from '#shared/domain/networks';
import { MUGGLEPAY_ALIASES, MUGGLEPAY_CODES } from '#shared/domain/pay-codes';
import * as domainErrors from '#shared/domain/errors';
import * as subscriptionErrors from '#shared/domain/subscription-errors';
import { statusOf } from '#shared/http/errors';
import * as requestErrors from '#shared/http/request-errors';
import { contextKeyOf, deployVariableOf, type Setting } from '#shared/core/settings';
import { ALL_SETTINGS } from '#shared/payments/setting-families';
import { EVENT_FUNCTIONS, type EventFunction } from '#shared/http/event-functions';
import { FUNCTION_TIMEOUT_SECONDS } from '#shared/http/routes';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where `npm run docs` writes the reference. */
export const REFERENCE_FILE = join(ROOT, 'docs', 'reference.md');

const source = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const cell = (text: string): string => text.replace(/\|/g, '\\|');

function currenciesTable(): string[] {
  const rows = PAY_CURRENCIES.map((code) => {
    const c = currency(code);
    const kind = c.kind === 'gateway' ? `gateway (priced in ${c.settles})` : c.kind;
    const network = networkName(code) ?? (c.kind === 'gateway' ? '-' : chainOf(code));
    const decimals = c.precision === c.payPrecision ? `${c.precision}` : `${c.payPrecision} quoted, ${c.precision} booked`;
    const confirmations = c.kind === 'gateway' ? '1 (the gateway says paid)' : `${requiredConfirmations(code)}`;
    const setting = c.kind === 'gateway' ? '-' : `\`${code}_CONFIRMATIONS\``;
    return `| \`${code}\` | ${kind} | ${network} | ${c.kind === 'gateway' ? '-' : keyOf(code)} | ${decimals} | ${confirmations} | ${setting} |`;
  });
  return [
    '## Currencies and networks',
    '',
    "Every `pay_currency` (`shared/domain/currencies.ts`, `shared/domain/networks.ts`), with the network it is sent on, the receiving key its addresses come from (`SOL`: the merchant's wallet), its decimals and the confirmations a payment needs by default (in that network's own blocks; the variable changes it). Why these numbers: [merchant guide, Order statuses and Networks](merchant-guide.md#networks).",
    '',
    '| Code | Kind | Network | Key | Decimals | Confirmations | Setting |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '### EVM networks',
    '',
    '| Network | Chain id | Pay currencies | Token contracts (mainnet defaults) |',
    '|---|---|---|---|',
    ...EVM_NETWORKS.map(
      (n) =>
        `| ${n.name} | ${n.chainId} | ${evmCurrencies(n)
          .map((c) => `\`${c}\``)
          .join(', ')} | ${Object.entries(n.tokens)
          .map(([code, contract]) => `${code} \`${contract}\``)
          .join('; ')} |`,
    ),
  ];
}

function payCodesTable(): string[] {
  const rows = [
    ...Object.entries(MUGGLEPAY_CODES).map(([code, ours]) => `| \`${code}\` | ${ours ? `\`${ours}\`` : 'not taken yet: 400 `PAYMENT_NOT_AVAILABLE`'} |`),
    ...Object.entries(MUGGLEPAY_ALIASES).map(([code, ours]) => `| \`${code}\` | \`${ours}\` |`),
  ];
  return [
    '## pay_currency codes',
    '',
    "MugglePay's codes beyond this service's own (`shared/domain/pay-codes.ts`) and the pay currency each becomes; any code in neither list is 400 `PARAMETERS_INVALID`.",
    '',
    '| MugglePay code | Taken as |',
    '|---|---|',
    ...rows,
  ];
}

/** A setting's default as the readers apply it. */
function defaultOf(declared: Setting): string {
  if (declared.defaultText !== undefined) return declared.defaultText;
  if (declared.required) return 'required';
  if (typeof declared.default === 'number') return String(declared.default);
  if (typeof declared.default === 'string') return `\`${declared.default}\``;
  return declared.type === 'flag' ? 'false' : 'none';
}

/** Where an operator sets it in AWS. */
function awsOf(name: string, declared: Setting): string {
  const key = `\`${contextKeyOf(name, declared)}\``;
  const variable = deployVariableOf(name, declared);
  switch (declared.aws) {
    case 'operator':
      return key;
    case 'parameter':
      return `${key}${variable === name ? '' : ` (\`${variable}\`)`}: an SSM parameter's name; the functions get \`${name}_PARAMETER\``;
    case 'deploy':
      return `${key}: the stack's own`;
    case 'stack':
      return 'set by the stack or Lambda';
    case 'local':
      return 'never (local only)';
  }
}

function eventFunctionsTable(): string[] {
  const access = { none: 'none', read: 'reads', write: 'reads and writes' } as const;
  const rows = (Object.values(EVENT_FUNCTIONS) as EventFunction[]).map((event) => {
    const trigger = event.everyMinutes ? `${event.trigger}, every ${event.everyMinutes === 1 ? 'minute' : `${event.everyMinutes} minutes`}` : event.trigger;
    const grants = event.grants?.length ? event.grants.map((grant) => `\`${grant}\``).join(', ') : '-';
    return `| \`${event.fn}\` | ${cell(trigger)} | ${access[event.access]} | ${grants} | ${event.timeoutSeconds ? `${event.timeoutSeconds} s` : (event.timeoutFrom ?? `${FUNCTION_TIMEOUT_SECONDS} s`)} |`;
  });
  return [
    '## Functions not behind a route',
    '',
    "As declared in `shared/http/event-functions.ts` (`EVENT_FUNCTIONS`), which the stack builds them from; the route functions are declared by their routes (`shared/http/routes.ts`), email's and the chain watchers' by their constructs. Table access and grants as in [deploy.md](deploy.md#architecture): a role holds the calls its code makes within them.",
    '',
    '| Function | Started by | Table | Grants | Timeout |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

function configurationTable(): string[] {
  const byName = Object.entries(ALL_SETTINGS).sort(([a], [b]) => a.localeCompare(b));
  const row = ([name, declared]: [string, Setting]) => `| \`${name}\` | ${cell(defaultOf(declared))} | ${cell(awsOf(name, declared))} | ${cell(declared.about)} |`;
  const settable = byName.filter(([, declared]) => ['operator', 'parameter', 'deploy'].includes(declared.aws));
  return [
    '## Configuration settings',
    '',
    "Every setting, as declared once in `shared/core/settings.ts` (and, for the names built per chain, network, currency or gateway, `shared/payments/setting-families.ts`): the handlers read them through those declarations and the AWS stack takes exactly the ones declared settable, so this table is what both do. **Locally** every one but the stack's own is read from the environment of `npm start` (secrets also as `<NAME>_FILE`). **In AWS** the operator sets a setting by its CDK context key (`-c key=value` or `cdk.json`) or by its variable in the shell that runs `cdk` ([deploy.md, Configuration](deploy.md#configuration)); values are checked at synth. What the important ones mean: [operator guide, Configuration](operator-guide.md#configuration).",
    '',
    '### Settings an operator sets',
    '',
    '| Variable | Default | AWS context key | Meaning |',
    '|---|---|---|---|',
    ...settable.map(row),
    '',
    '### Set by the stack, or local only',
    '',
    '| Variable | Default | AWS | Meaning |',
    '|---|---|---|---|',
    ...byName.filter((entry) => !settable.includes(entry)).map(row),
  ];
}

type AppErrorClass = new (...details: string[]) => domainErrors.AppError;

/**
 * An error as the table shows it: each detail its constructor takes written as its parameter's
 * name in braces (`{network}`), so the message reads as a template, not as "undefined".
 */
function sampleOf(ErrorClass: AppErrorClass): domainErrors.AppError {
  const parameters = /constructor\s*\(([^)]*)\)/.exec(String(ErrorClass))?.[1] ?? '';
  // A parameter with a default keeps it (undefined): the message the case has without details.
  const details = parameters
    .split(',')
    .filter((parameter) => parameter.trim() !== '')
    .map((parameter) => (parameter.includes('=') ? undefined : `{${parameter.replace(/:.*$/s, '').replace(/[?\s]/g, '')}}`));
  return new ErrorClass(...(details as string[]));
}

/** The status the HTTP layer answers an error with; an error without one is a bug this table must not hide. */
function statusIn(error: domainErrors.AppError): number {
  const status = statusOf(error);
  if (status === undefined) throw new Error(`${error.code} has no HTTP status (shared/http/errors.ts)`);
  return status;
}

function errorTable(): string[] {
  const classes = ([...Object.values(domainErrors), ...Object.values(subscriptionErrors), ...Object.values(requestErrors)] as unknown[]).filter(
    (value): value is AppErrorClass => typeof value === 'function' && value.prototype instanceof domainErrors.AppError,
  );
  const errors = classes.map(sampleOf).sort((a, b) => a.code.localeCompare(b.code) || statusIn(a) - statusIn(b));
  return [
    '## Error codes',
    '',
    "Every `error_code` of `shared/domain/errors.ts`, of recurring billing's `shared/domain/subscription-errors.ts` and of the HTTP layer's own errors (`shared/http/request-errors.ts`), with the HTTP status it is answered with (`shared/http/errors.ts`) and its message (a detail the case names written as `{detail}`). The contract's special bodies (`Price is not valid`, Get Order's `eror`, Checkout's 422) and the examples of each operation are in [openapi.json](openapi.json); the portal's own codes are not in this table.",
    '',
    '| error_code | HTTP | Message |',
    '|---|---|---|',
    ...errors.map((error) => `| \`${error.code}\` | ${statusIn(error)} | ${cell(error.message)} |`),
  ];
}

function cliSection(): string[] {
  const merchant = source('infra/local/merchant-cli.ts');
  const usage = /const USAGE = `([^`]+)`;/.exec(merchant)?.[1];
  if (!usage) throw new Error('infra/local/merchant-cli.ts has no USAGE text');
  const flags = (text: string): string[] => {
    const options = /options: \{([\s\S]*?)\n\s*\}/.exec(text.slice(text.indexOf('parseArgs(')))?.[1] ?? '';
    const found = [...options.matchAll(/'?([a-z][a-z-]*)'?: \{ type: '(string|boolean)'(, multiple: true)?/g)].map(
      ([, name, type, multiple]) => `\`--${name}\`${type === 'string' ? ' VALUE' : ''}${multiple ? ' (repeatable)' : ''}`,
    );
    if (found.length === 0) throw new Error('a CLI declares no parseArgs options');
    return found;
  };
  return [
    '## CLI commands and flags',
    '',
    '`npm run merchant -- <command>` (`infra/local/merchant-cli.ts`), its usage text as it prints it:',
    '',
    '```',
    usage,
    '```',
    '',
    `Flags it parses: ${flags(merchant).join(', ')}.`,
    '',
    `\`npm run health\` (\`infra/local/health-cli.ts\`): flags ${flags(source('infra/local/health-cli.ts')).join(', ')}; exit status 0 when every source is ok, 1 when not, 2 when the table cannot be read.`,
    '',
    "Both work on the running local runtime's table, or with `TABLE_NAME` set on that table in AWS: [operator guide, Operating merchants](operator-guide.md#operating-merchants).",
  ];
}

/** The whole document. */
export function renderReference(): string {
  return [
    '# Reference',
    '',
    '<!-- Generated by `npm run docs` (tools/build-docs.ts) from the code; tests/unit/docs-reference.test.ts fails when it is stale. Do not edit by hand. -->',
    '',
    "Tables that restate the code, generated from it. Not here, because the code does not expose them as data: the order status transitions (see the [merchant guide](merchant-guide.md#order-statuses)), the stack's outputs ([deploy.md](deploy.md#deploy)), and the routes (see [openapi.json](openapi.json), generated the same way).",
    '',
    ...currenciesTable(),
    '',
    ...payCodesTable(),
    '',
    ...configurationTable(),
    '',
    ...eventFunctionsTable(),
    '',
    ...errorTable(),
    '',
    ...cliSection(),
    '',
  ].join('\n');
}
