import { describe, expect, it } from 'vitest';
import { parse } from 'eth-url-parser';
import { parseDecimal } from '#shared/domain/money';
import { erc20TransferUri } from '#shared/payments/addresses/erc20-uri';
import { paymentUri } from '#shared/payments/addresses/index';

/** The EIP-681 URIs of token invoices, read back by an independent parser (eth-url-parser). */
const USDT = '0xdAC17F958D2ee523a2206206994597C13D831ec7';
const TO = '0x0Aaeb2f8A7b0843D0C70e70404C62C4aFC736711';

describe('EIP-681 token transfer URIs', () => {
  it.each([
    ['19.99', '19990000'],
    ['0.000001', '1'],
    ['1000000', '1000000000000'],
  ])('%s USDT is transfer(address, %s units) on the token contract', (amount, units) => {
    const uri = erc20TransferUri(USDT, 1, TO, parseDecimal(amount), 6);
    expect(uri).toBe(`ethereum:${USDT}@1/transfer?address=${TO}&uint256=${units}`);
    expect(parse(uri)).toEqual({
      scheme: 'ethereum',
      target_address: USDT,
      chain_id: '1',
      function_name: 'transfer',
      parameters: { address: TO, uint256: units },
    });
  });

  it('writes a lowercase contract in its EIP-55 form and names the configured chain', () => {
    const uri = erc20TransferUri(USDT.toLowerCase(), 31337, TO, parseDecimal('5'), 6);
    expect(parse(uri)).toMatchObject({ target_address: USDT, chain_id: '31337' });
  });

  it.each([
    ['a contract that is not an address', () => erc20TransferUri('0x1234', 1, TO, parseDecimal('1'), 6), /contract/],
    ['a contract with a character before it', () => erc20TransferUri(` ${USDT}`, 1, TO, parseDecimal('1'), 6), /^contract is not an Ethereum address: /],
    ['a contract with a digit after it', () => erc20TransferUri(`${USDT}0`, 1, TO, parseDecimal('1'), 6), /^contract is not an Ethereum address: /],
    ['a recipient without its checksum', () => erc20TransferUri(USDT, 1, TO.toLowerCase(), parseDecimal('1'), 6), /recipient/],
    ['chain id 0', () => erc20TransferUri(USDT, 0, TO, parseDecimal('1'), 6), /chain id/],
    ['more decimals than the token', () => erc20TransferUri(USDT, 1, TO, parseDecimal('0.0000001'), 6), /decimals/],
    ['a negative amount', () => erc20TransferUri(USDT, 1, TO, parseDecimal('-1'), 6), /negative/],
  ])('refuses %s', (_name, build, message) => {
    expect(build).toThrow(RangeError);
    expect(build).toThrow(message);
  });

  it('native ETH URIs name the configured chain too (the same parser reads the value in wei)', () => {
    const uri = paymentUri('ETH', TO, '0.01', { chainId: 31337 });
    expect(parse(uri)).toMatchObject({ target_address: TO, chain_id: '31337', parameters: { value: '10000000000000000' } });
  });
});
