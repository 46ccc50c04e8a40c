import { describe, expect, it } from 'vitest';
import { compileTestToken, committedTestToken } from '#infra/devnet/compile';

describe('the devnet test token', () => {
  it('committed bytecode is what the pinned solc-js compiles from the committed source', () => {
    const committed = committedTestToken();
    const compiled = compileTestToken();
    expect(committed.compiler).toBe(compiled.compiler);
    expect(committed.bytecode).toBe(compiled.bytecode);
    expect(committed.abi).toEqual(compiled.abi);
    expect(committed.bytecode.length).toBeGreaterThan(1000);
  });
});
