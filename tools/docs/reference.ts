/**
 * docs/reference.md, generated from the code so its tables cannot drift from it (issue 29):
 * the currencies and networks with their default confirmations, MugglePay's `pay_currency`
 * codes, the configuration variables with their defaults and whether the AWS stack takes them,
 * the error codes with their HTTP status, and the CLIs' commands and flags.
 *
 * Where the code exposes a value as data it is imported (the currency, network and pay-code
 * tables, the error classes). Where it exists only as code text (which variable a reader reads
 * and its default; the stack's SETTINGS, which tools/ may not import: tests/unit/layers.test.ts;
 * the CLIs' usage text, which runs on import) the source file is read and matched, strictly:
 * a pattern that finds too little throws, so a refactor breaks the build of this file, not its truth.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAY_CURRENCIES, currency, chainOf, keyOf, requiredConfirmations } from '#shared/domain/currencies';
import { EVM_NETWORKS, evmCurrencies, networkName } from '#shared/domain/networks';
import { MUGGLEPAY_ALIASES, MUGGLEPAY_CODES } from '#shared/domain/pay-codes';
import * as domainErrors from '#shared/domain/errors';
import { MAX_TIP_AGE_DEFAULTS, maxTipAgeVariable } from '#shared/chains/tip-age';

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
    'Every `pay_currency` (`shared/domain/currencies.ts`, `shared/domain/networks.ts`), with the network it is sent on, the receiving key its addresses come from (`SOL`: the merchant\'s wallet), its decimals and the confirmations a payment needs by default (in that network\'s own blocks; the variable changes it). Why these numbers: [merchant guide, Order statuses and Networks](merchant-guide.md#networks).',
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
      (n) => `| ${n.name} | ${n.chainId} | ${evmCurrencies(n).map((c) => `\`${c}\``).join(', ')} | ${Object.entries(n.tokens).map(([code, contract]) => `${code} \`${contract}\``).join('; ')} |`,
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

/** Every `.ts` file under `dir`, sorted, tests excluded. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** `7 * 86_400` -> 604800; anything but integer literals and `*` stays as written. */
function literal(expression: string): string {
  const text = expression.trim();
  if (/^[\d_]+(\s*\*\s*[\d_]+)*$/.test(text)) return String(text.split('*').reduce((product, factor) => product * Number(factor.trim().replace(/_/g, '')), 1));
  if (/^'[^']*'$/.test(text)) return `\`${text.slice(1, -1)}\``;
  return `\`${text}\` (in code)`;
}

interface Variable {
  name: string;
  default: string;
  files: Set<string>;
}

/** The variables the handlers' readers read by a literal name (shared/), with their defaults. */
function handlerVariables(): Map<string, Variable> {
  const found = new Map<string, Variable>();
  const reader = /\b(requiredString|optionalString|positiveInteger|nonNegativeInteger|flag|secretSource)\(env, '([A-Z][A-Z0-9_]*)'(?:, ([^)]+))?\)(\s*\?\?\s*([^,;)\n]+))?/g;
  for (const file of tsFiles('shared')) {
    if (file === 'shared/core/env.ts') continue;
    for (const match of source(file).matchAll(reader)) {
      const [, kind, name, fallback, , orElse] = match;
      const value =
        kind === 'requiredString'
          ? 'required'
          : kind === 'flag'
            ? 'false'
            : kind === 'secretSource'
              ? `one of \`${name}_PARAMETER\`, \`${name}_FILE\`, \`${name}\`, or none`
              : fallback !== undefined
                ? literal(fallback)
                : orElse !== undefined
                  ? literal(orElse)
                  : 'none';
      const entry = found.get(name!) ?? { name: name!, default: value, files: new Set<string>() };
      if (entry.default === 'none') entry.default = value;
      entry.files.add(file);
      found.set(name!, entry);
    }
  }
  if (found.size < 40) throw new Error(`only ${found.size} configuration variables found in shared/: has the readers' shape changed?`);
  return found;
}

/** The variables the stack takes from the operator (infra/cdk/config.ts SETTINGS and its derived settings). */
function deployableVariables(): Set<string> {
  const text = source('infra/cdk/config.ts');
  const settings = text.slice(text.indexOf('export const SETTINGS'), text.indexOf('} as const;'));
  const names = new Set([...settings.matchAll(/env: '([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]!));
  if (names.size < 40) throw new Error(`only ${names.size} settings found in infra/cdk/config.ts SETTINGS`);
  // NETWORK_SETTINGS and TIP_AGE_SETTINGS there: derived from these tables.
  for (const network of EVM_NETWORKS) {
    if (network.chain !== 'ETH') {
      names.add(`${network.chain}_CHAIN_ID`);
      for (const code of Object.keys(network.tokens)) names.add(`${code}_CONTRACT`);
    }
    for (const code of evmCurrencies(network)) if (code !== 'ETH') names.add(`${code}_CONFIRMATIONS`);
    names.add(`${network.chain}_BLOCK_RANGE`);
  }
  for (const chain of Object.keys(MAX_TIP_AGE_DEFAULTS)) names.add(maxTipAgeVariable(chain));
  return names;
}

function configurationTable(): string[] {
  const handler = handlerVariables();
  const deployable = deployableVariables();
  /** A secret is given to the stack by its SSM parameter's name: `TOKEN_HMAC_KEY` by `TOKEN_HMAC_KEY_PARAMETER`. */
  const takes = (name: string): boolean => deployable.has(name) || (handler.get(name)?.default.startsWith('one of') === true && deployable.has(`${name}_PARAMETER`));
  const rows = [...handler.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((v) => `| \`${v.name}\` | ${cell(v.default)} | ${takes(v.name) ? 'yes' : 'no'} | ${[...v.files].map((f) => `\`${f}\``).join(', ')} |`);
  const onlyDeploy = [...deployable].filter((name) => !handler.has(name) && !(name.endsWith('_PARAMETER') && handler.has(name.slice(0, -'_PARAMETER'.length)))).sort();
  return [
    '## Configuration settings',
    '',
    'Every environment variable the handlers read by a literal name (the readers of `shared/core/config.ts` and the modules it names), with its default. **Local**: every one is read from the environment of `npm start`. **AWS**: "yes" when the stack takes it from the operator (`infra/cdk/config.ts` SETTINGS and the settings it derives; [deploy.md](deploy.md) names the context key); "no" when the stack either sets it itself (the table, queues, portal origin, ...) or leaves the default. What each means: [operator guide, Configuration](operator-guide.md#configuration).',
    '',
    '| Variable | Default | AWS | Read in |',
    '|---|---|---|---|',
    ...rows,
    '',
    'The stack also takes these, which no handler reader names literally (the stack\'s own settings, or variables whose names the code builds per chain, network or currency; [deploy.md](deploy.md) explains each): ' + onlyDeploy.map((name) => `\`${name}\``).join(', ') + '. The defaults of the built ones: the currency table above (confirmations, contracts, chain ids), 100 blocks for `<NETWORK>_BLOCK_RANGE`, and the tip ages in `shared/chains/tip-age.ts`.',
  ];
}

type AppErrorClass = new () => domainErrors.AppError;

function errorTable(): string[] {
  const classes = (Object.values(domainErrors) as unknown[]).filter(
    (value): value is AppErrorClass => typeof value === 'function' && value.prototype instanceof domainErrors.AppError,
  );
  const errors = classes.map((ErrorClass) => new ErrorClass()).sort((a, b) => a.code.localeCompare(b.code) || a.statusCode - b.statusCode);
  return [
    '## Error codes',
    '',
    'Every `error_code` of `shared/domain/errors.ts`, with the HTTP status it is answered with and its message when the case has no details (most messages name the field or the value). The contract\'s special bodies (`Price is not valid`, Get Order\'s `eror`, Checkout\'s 422) and the examples of each operation are in [openapi.json](openapi.json); the portal\'s own codes are not in this table.',
    '',
    '| error_code | HTTP | Message |',
    '|---|---|---|',
    ...errors.map((error) => `| \`${error.code}\` | ${error.statusCode} | ${cell(error.message)} |`),
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
    'Both work on the running local runtime\'s table, or with `TABLE_NAME` set on that table in AWS: [operator guide, Operating merchants](operator-guide.md#operating-merchants).',
  ];
}

/** The whole document. */
export function renderReference(): string {
  return [
    '# Reference',
    '',
    '<!-- Generated by `npm run docs` (tools/build-docs.ts) from the code; tests/unit/docs-reference.test.ts fails when it is stale. Do not edit by hand. -->',
    '',
    'Tables that restate the code, generated from it. Not here, because the code does not expose them as data: the order status transitions (see the [merchant guide](merchant-guide.md#order-statuses)), the stack\'s outputs and its own settings ([deploy.md](deploy.md)), and the routes (see [openapi.json](openapi.json), generated the same way).',
    '',
    ...currenciesTable(),
    '',
    ...payCodesTable(),
    '',
    ...configurationTable(),
    '',
    ...errorTable(),
    '',
    ...cliSection(),
    '',
  ].join('\n');
}
