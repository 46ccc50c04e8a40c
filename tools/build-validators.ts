/**
 * `npm run validators`: writes shared/http/validators.generated.ts, the request validators as
 * ajv standalone code, so the Lambda bundles neither carry ajv's compiler nor compile schemas
 * at module load. `npm run validators -- --check`: writes nothing; exits 1 when the committed
 * file differs from what would be generated. tests/unit/validators.test.ts checks the same.
 *
 * Only this build imports ajv's compiler; the generated code needs nothing of ajv at run time
 * but its small `ajv/dist/runtime/*` helpers.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv, { _, type AnySchemaObject, type Options } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { SCHEMA_FORMATS } from '#shared/http/validation';
import {
  checkoutBodySchema,
  createOrderBodySchema,
  listOrdersQuerySchema,
  orderActionBodySchema,
  sandboxPayBodySchema,
  sandboxRefundBodySchema,
} from '#shared/schemas/orders';
import { payCheckoutBodySchema } from '#shared/schemas/pay';
import { createLinkBodySchema, linkOrderBodySchema, listLinksQuerySchema, updateLinkBodySchema } from '#shared/schemas/payment-links';
import {
  auditQuerySchema,
  inviteMemberBodySchema,
  keyPreviewBodySchema,
  memberRoleBodySchema,
  passkeyAnswerBodySchema,
  portalOrdersQuerySchema,
  recoveryCodeBodySchema,
  rollSecretBodySchema,
  settingsBodySchema,
  emailPreferencesBodySchema,
  signOutBodySchema,
  tokenNameBodySchema,
} from '#shared/schemas/portal';
import { payRefundAddressBodySchema, payRefundBodySchema, portalRefundsQuerySchema, refundLinkBodySchema, refundOrderBodySchema, refundTxidBodySchema } from '#shared/schemas/refunds';

export const VALIDATORS_FILE = fileURLToPath(new URL('../shared/http/validators.generated.ts', import.meta.url));

export interface ValidatorSpec {
  schema: AnySchemaObject & { $id: string };
  /** The TypeScript type the validator guarantees (names from {@link TYPE_IMPORTS}). */
  type: string;
  /** Query strings: ajv turns "20" into 20 (and refuses "abc", "1.5"). Bodies are never coerced. */
  coerce?: boolean;
}

/** Every request schema a handler validates, by the name the generated module exports. */
export const VALIDATORS: Record<string, ValidatorSpec> = {
  createOrderBody: { schema: createOrderBodySchema, type: 'CreateOrderInput' },
  checkoutBody: { schema: checkoutBodySchema, type: 'CheckoutOrderBody' },
  orderActionBody: { schema: orderActionBodySchema, type: 'OrderActionBody' },
  sandboxPayBody: { schema: sandboxPayBodySchema, type: 'SandboxPayBody' },
  sandboxRefundBody: { schema: sandboxRefundBodySchema, type: 'SandboxRefundBody' },
  payCheckoutBody: { schema: payCheckoutBodySchema, type: 'PayCheckoutBody' },
  listOrdersQuery: { schema: listOrdersQuerySchema, type: 'ListOrdersQuery', coerce: true },
  portalPasskeyAnswerBody: { schema: passkeyAnswerBodySchema, type: 'PasskeyAnswerBody' },
  portalRecoveryCodeBody: { schema: recoveryCodeBodySchema, type: 'RecoveryCodeBody' },
  portalSignOutBody: { schema: signOutBodySchema, type: 'SignOutBody' },
  portalOrdersQuery: { schema: portalOrdersQuerySchema, type: 'PortalOrdersQuery', coerce: true },
  portalTokenNameBody: { schema: tokenNameBodySchema, type: 'TokenNameBody' },
  portalRollSecretBody: { schema: rollSecretBodySchema, type: 'RollSecretBody' },
  portalKeyPreviewBody: { schema: keyPreviewBodySchema, type: 'KeyPreviewBody' },
  portalSettingsBody: { schema: settingsBodySchema, type: 'SettingsBody' },
  portalAuditQuery: { schema: auditQuerySchema, type: 'AuditQuery', coerce: true },
  portalInviteMemberBody: { schema: inviteMemberBodySchema, type: 'InviteMemberBody' },
  portalMemberRoleBody: { schema: memberRoleBodySchema, type: 'MemberRoleBody' },
  refundOrderBody: { schema: refundOrderBodySchema, type: 'RefundOrderBody' },
  refundTxidBody: { schema: refundTxidBodySchema, type: 'RefundTxidBody' },
  refundLinkBody: { schema: refundLinkBodySchema, type: 'RefundLinkBody' },
  payRefundBody: { schema: payRefundBodySchema, type: 'PayRefundBody' },
  payRefundAddressBody: { schema: payRefundAddressBodySchema, type: 'PayRefundAddressBody' },
  portalRefundsQuery: { schema: portalRefundsQuerySchema, type: 'PortalRefundsQuery', coerce: true },
  portalEmailPreferencesBody: { schema: emailPreferencesBodySchema, type: 'EmailPreferencesBody' },
  createLinkBody: { schema: createLinkBodySchema, type: 'CreateLinkBody' },
  updateLinkBody: { schema: updateLinkBodySchema, type: 'UpdateLinkBody' },
  listLinksQuery: { schema: listLinksQuerySchema, type: 'ListLinksQuery', coerce: true },
  linkOrderBody: { schema: linkOrderBodySchema, type: 'LinkOrderBody' },
};

const TYPE_IMPORTS = [
  "import type { ValidateFunction } from 'ajv';",
  "import type { PayCheckoutBody } from '#shared/schemas/pay';",
  "import type { CreateLinkBody, LinkOrderBody, ListLinksQuery, UpdateLinkBody } from '#shared/schemas/payment-links';",
  "import type { AuditQuery, EmailPreferencesBody, InviteMemberBody, KeyPreviewBody, MemberRoleBody, PasskeyAnswerBody, PortalOrdersQuery, RecoveryCodeBody, RollSecretBody, SettingsBody, SignOutBody, TokenNameBody } from '#shared/schemas/portal';",
  "import type { PayRefundAddressBody, PayRefundBody, PortalRefundsQuery, RefundLinkBody, RefundOrderBody, RefundTxidBody } from '#shared/schemas/refunds';",
  "import type { CheckoutOrderBody, CreateOrderInput, ListOrdersQuery, OrderActionBody, SandboxPayBody, SandboxRefundBody } from '#shared/schemas/orders';",
];

/**
 * The custom formats (shared/http/validation.ts), for ajv here and, by name, for the generated
 * code (which imports them: `code.formats` is the expression the generated code reads them from).
 */
const FORMAT_IMPORT = "import { SCHEMA_FORMATS as FORMATS } from '#shared/http/validation';";

/** The options the service always validated with (unknown keywords and formats are errors). */
const OPTIONS: Options = {
  allErrors: false,
  strict: true,
  allowUnionTypes: true,
  useDefaults: false,
  code: { source: true, esm: true, lines: true, formats: _`FORMATS` },
};

/**
 * ajv writes its runtime helpers as `require("ajv/dist/runtime/<name>").default`, even for ESM
 * (ajv-validator/ajv#2209). They become imports of the CommonJS module; Node and esbuild give
 * its exports object, vitest its default export, hence the unwrapping.
 */
const RUNTIME_REQUIRE = /require\("ajv\/dist\/runtime\/([a-z0-9]+)"\)\.default/g;

function esmRuntimeHelpers(code: string): { code: string; imports: string[]; consts: string[] } {
  const helpers = new Set<string>();
  const replaced = code.replace(RUNTIME_REQUIRE, (_match, name: string) => {
    helpers.add(name);
    return `runtime_${name}`;
  });
  if (/\brequire\(/.test(replaced)) throw new Error('ajv standalone code requires a module this build does not turn into an import');
  const names = [...helpers].sort();
  return {
    code: replaced,
    imports: names.map((name) => `import runtime_${name}_module from 'ajv/dist/runtime/${name}.js';`),
    consts: names.map((name) => `const runtime_${name} = runtime_${name}_module.default ?? runtime_${name}_module;`),
  };
}

/**
 * One validator's standalone code, scoped in a function of its own: each keeps its ajv names
 * (validate10, schema11, ...) to itself, and a bundle drops the validators it does not import.
 */
function validatorCode(ajv: Ajv, name: string, spec: ValidatorSpec): string {
  const validate = ajv.compile(spec.schema);
  const validateName = validate.source?.validateName;
  if (!validateName) throw new Error(`ajv gave no source for ${spec.schema.$id}`);
  const code = standaloneCode(ajv, validate);
  // What ajv puts before the code of a single validator with code.esm and code.lines.
  const head = `"use strict";\nexport const validate = ${validateName};\nexport default ${validateName};\n`;
  if (!code.startsWith(head)) throw new Error(`ajv standalone code of ${spec.schema.$id} does not start as expected:\n${code.slice(0, 200)}`);
  return [
    `/** The ${spec.schema.$id} schema${spec.coerce ? ' (coerces query strings)' : ''}. */`,
    `export const ${name} = /* @__PURE__ */ (() => {`,
    code.slice(head.length).trimEnd(),
    `return ${validateName};`,
    `})() as ValidateFunction<${spec.type}>;`,
  ].join('\n');
}

/** The ajv the validators are compiled with: for bodies, or (coerce) for query strings. */
export function validatorsAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({ ...OPTIONS, coerceTypes: coerce });
  for (const [format, validate] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(format, validate);
  return ajv;
}

/** The text of shared/http/validators.generated.ts as the schemas make it now. */
export function generateValidatorsModule(): string {
  const bodies = validatorsAjv(false);
  const queries = validatorsAjv(true);
  const validators = Object.entries(VALIDATORS).map(([name, spec]) => validatorCode(spec.coerce ? queries : bodies, name, spec));
  const { code, imports, consts } = esmRuntimeHelpers(validators.join('\n\n'));
  return [
    '// Generated by tools/build-validators.ts from the request schemas in shared/schemas/: do not edit.',
    '// Regenerate with `npm run validators` after changing a schema (tests/unit/validators.test.ts fails when stale).',
    '// ajv standalone code: no schema is compiled at module load and ajv itself is not imported.',
    '// The validators have no `schema`/`schemaEnv` properties (nothing reads them).',
    '// @ts-nocheck -- ajv writes plain JavaScript; the exports carry the types.',
    ...TYPE_IMPORTS,
    ...imports,
    FORMAT_IMPORT,
    '',
    ...consts,
    '',
    code,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const file = relative(process.cwd(), VALIDATORS_FILE);
  const generated = generateValidatorsModule();
  if (process.argv.includes('--check')) {
    const committed = await readFile(VALIDATORS_FILE, 'utf8').catch(() => undefined);
    if (committed !== generated) {
      console.error(`${file} is out of date: run \`npm run validators\` and commit the result.`);
      process.exit(1);
    }
    console.log(`${file} is up to date.`);
  } else {
    await writeFile(VALIDATORS_FILE, generated);
    console.log(`Wrote ${file}.`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
