import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Compiles the devnet's test token with solc-js (the npm `solc` package, pinned in
 * package.json; no compiler download) and writes its ABI and bytecode beside the source, so
 * the devnet and the tests deploy committed bytecode without loading the compiler. A test
 * recompiles and compares: `npx tsx infra/devnet/compile.ts` after changing the source.
 */
const SOURCE = fileURLToPath(new URL('./contracts/TestToken.sol', import.meta.url));
const ARTIFACT = fileURLToPath(new URL('./contracts/TestToken.json', import.meta.url));

export const COMPILER_SETTINGS = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' } as const;

export interface TokenArtifact {
  contract: 'TestToken';
  compiler: string;
  settings: typeof COMPILER_SETTINGS;
  abi: unknown[];
  bytecode: `0x${string}`;
}

export function compileTestToken(): TokenArtifact {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string; version(): string };
  const input = {
    language: 'Solidity',
    sources: { 'TestToken.sol': { content: readFileSync(SOURCE, 'utf8') } },
    settings: { ...COMPILER_SETTINGS, outputSelection: { '*': { TestToken: ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const compiled = output.contracts['TestToken.sol']!.TestToken!;
  return {
    contract: 'TestToken',
    compiler: `solc-js ${solc.version()}`,
    settings: COMPILER_SETTINGS,
    abi: compiled.abi,
    bytecode: `0x${compiled.evm.bytecode.object}`,
  };
}

export function committedTestToken(): TokenArtifact {
  return JSON.parse(readFileSync(ARTIFACT, 'utf8')) as TokenArtifact;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(ARTIFACT, `${JSON.stringify(compileTestToken(), null, 2)}\n`);
  console.log(`wrote ${ARTIFACT}`);
}
