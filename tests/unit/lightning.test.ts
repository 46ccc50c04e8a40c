import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Bolt11InvoiceInput,
  Bolt11Error,
  bolt11SigningData,
  decodeBolt11,
  encodeAmount,
  encodeBolt11,
  lightningUri,
  privateKeySigner,
  SANDBOX_NODE_PRIVATE_KEY,
  SandboxLightningNode,
} from '#shared/payments/lightning/index';
import { readInvoice } from '../support/bolt11';

// Every BOLT #11 example is signed with this key (published in the spec).
const SPEC_PRIVATE_KEY = hexToBytes('e126f68f7eafcc8b74f54d269fe206be715000f94dac067d1c04a8ca3b2db734');
const SPEC_NODE_ID = '03e7156ae33b0a208d0744199163177e909e80176e55d97a2f221ede0f934dd9ad';
const SPEC_PAYMENT_HASH = '0001020304050607080900010203040506070809000102030405060708090102';
const SPEC_TIMESTAMP = 1496314658;

// Examples copied from BOLT #11 ("Examples"). Each is self-checking: a wrong character would
// break the bech32 checksum, and the signature must recover to the spec's node id.
const SPEC = {
  donation:
    'lnbc1pvjluezsp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygspp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6twvus8g6rfwvs8qun0dfjkxaq9qrsgq357wnc5r2ueh7ck6q93dj32dlqnls087fxdwk8qakdyafkq3yap9us6v52vjjsrvywa6rt52cm9r9zqt8r2t7mlcwspyetp5h2tztugp9lfyql',
  coffee:
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp',
  nonsense:
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
  pico: 'lnbc9678785340p1pwmna7lpp5gc3xfm08u9qy06djf8dfflhugl6p7lgza6dsjxq454gxhj9t7a0sd8dgfkx7cmtwd68yetpd5s9xar0wfjn5gpc8qhrsdfq24f5ggrxdaezqsnvda3kkum5wfjkzmfqf3jkgem9wgsyuctwdus9xgrcyqcjcgpzgfskx6eqf9hzqnteypzxz7fzypfhg6trddjhygrcyqezcgpzfysywmm5ypxxjemgw3hxjmn8yptk7untd9hxwg3q2d6xjcmtv4ezq7pqxgsxzmnyyqcjqmt0wfjjq6t5v4khxxqyjw5qcqp2rzjq0gxwkzc8w6323m55m4jyxcjwmy7stt9hwkwe2qxmy8zpsgg7jcuwz87fcqqeuqqqyqqqqlgqqqqn3qq9qn07ytgrxxzad9hc4xt3mawjjt8znfv8xzscs7007v9gh9j569lencxa8xeujzkxs0uamak9aln6ez02uunw6rd2ht2sqe4hz8thcdagpleym0j',
  coffeeBeans:
    'lnbc25m1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5vdhkven9v5sxyetpdeessp5zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygs9q5sqqqqqqqqqqqqqqqpqsq67gye39hfg3zd8rgc80k32tvy9xk2xunwm5lzexnvpx6fd77en8qaq424dxgt56cag2dpt359k3ssyhetktkpqh24jqnjyw6uqd08sgptq44qu',
} as const;

// Examples of invalid invoices from the same section.
const SPEC_INVALID = {
  badChecksum:
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrnt',
  noSeparator:
    'pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
  mixedCase:
    'LNBC2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpquwpc4curk03c9wlrswe78q4eyqc7d8d0xqzpuyk0sg5g70me25alkluzd2x62aysf2pyy8edtjeevuv4p2d5p76r4zkmneet7uvyakky2zr4cusd45tftc9c5fh0nnqpnl2jfll544esqchsrny',
  tooShort: 'lnbc1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdpl2pkx2ctnv5sxxmmwwd5kgetjypeh2ursdae8g6na6hlh',
  badMultiplier:
    'lnbc2500x1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpujr6jxr9gq9pv6g46y7d20jfkegkg4gljz2ea2a3m9lmvvr95tq2s0kvu70u3axgelz3kyvtp2ywwt0y8hkx2869zq5dll9nelr83zzqqpgl2zg',
  subMillisatoshi:
    'lnbc2500000001p1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpu7hqtk93pkf7sw55rdv4k9z2vj050rxdr6za9ekfs3nlt5lr89jqpdmxsmlj9urqumg0h9wzpqecw7th56tdms40p2ny9q4ddvjsedzcplva53s',
  unrecoverableSignature:
    'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaxtrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspk28uwq',
} as const;

const SIGNATURE_WORDS = 104;
const hex = (bytes: Uint8Array | undefined): string | undefined => (bytes ? bytesToHex(bytes) : undefined);

/** Splits an invoice into its hrp, data words (no signature) and signature words. */
function parts(invoice: string): { hrp: string; data: number[]; signature: number[] } {
  const { prefix, words } = bech32.decode(invoice as `${string}1${string}`, false);
  return { hrp: prefix, data: words.slice(0, -SIGNATURE_WORDS), signature: words.slice(-SIGNATURE_WORDS) };
}

/** Signs hrp + data words with `privateKey` the BOLT #11 way (independent of encodeBolt11). */
function signWords(hrp: string, data: number[], privateKey: Uint8Array): string {
  const { signature, recoveryId } = privateKeySigner(privateKey)(sha256(bolt11SigningData(hrp, data)));
  const signatureWords = bech32.toWords(Uint8Array.from([...signature, recoveryId]));
  return bech32.encode(hrp, [...data, ...signatureWords], false);
}

function sampleInput(overrides: Partial<Bolt11InvoiceInput> = {}): Bolt11InvoiceInput {
  return {
    network: 'bc',
    amountMsat: 2_500_000n,
    timestamp: 1_700_000_000,
    paymentHash: sha256(Uint8Array.of(1)),
    paymentSecret: sha256(Uint8Array.of(2)),
    description: 'Order #42',
    expirySeconds: 900,
    ...overrides,
  };
}

describe('decodeBolt11 on the published BOLT #11 examples', () => {
  it('decodes the modern donation invoice (no amount, payment secret)', () => {
    const invoice = decodeBolt11(SPEC.donation);
    expect(invoice.network).toBe('bc');
    expect(invoice.amountMsat).toBeUndefined();
    expect(invoice.timestamp).toBe(SPEC_TIMESTAMP);
    expect(hex(invoice.paymentHash)).toBe(SPEC_PAYMENT_HASH);
    expect(hex(invoice.paymentSecret)).toBe('11'.repeat(32));
    expect(invoice.description).toBe('Please consider supporting this project');
    expect(invoice.expirySeconds).toBe(3600);
    expect(invoice.minFinalCltvExpiry).toBe(18);
    expect(hex(invoice.payeeNodeKey)).toBe(SPEC_NODE_ID);
    expect(invoice.signatureValid).toBe(true);
  });

  it('decodes the $3 coffee invoice (2500u, 60 s expiry, recovery id 1)', () => {
    const invoice = decodeBolt11(SPEC.coffee);
    expect(invoice.amountMsat).toBe(250_000_000n);
    expect(invoice.description).toBe('1 cup coffee');
    expect(invoice.expirySeconds).toBe(60);
    expect(invoice.paymentSecret).toBeUndefined();
    expect(hex(invoice.paymentHash)).toBe(SPEC_PAYMENT_HASH);
    expect(hex(invoice.payeeNodeKey)).toBe(SPEC_NODE_ID);
    expect(invoice.signatureValid).toBe(true);
  });

  it('decodes a UTF-8 description', () => {
    const invoice = decodeBolt11(SPEC.nonsense);
    expect(invoice.description).toBe('ナンセンス 1杯');
    expect(hex(invoice.payeeNodeKey)).toBe(SPEC_NODE_ID);
    expect(invoice.signatureValid).toBe(true);
  });

  it('decodes a pico-BTC amount, a one-week expiry and c = 10 (skipping the r field)', () => {
    const invoice = decodeBolt11(SPEC.pico);
    expect(invoice.amountMsat).toBe(967_878_534n);
    expect(invoice.timestamp).toBe(1572468703);
    expect(hex(invoice.paymentHash)).toBe('462264ede7e14047e9b249da94fefc47f41f7d02ee9b091815a5506bc8abf75f');
    expect(invoice.expirySeconds).toBe(604_800);
    expect(invoice.minFinalCltvExpiry).toBe(10);
    expect(invoice.description).toMatch(/^Blockstream Store: 88\.85 USD/);
    expect(hex(invoice.payeeNodeKey)).toBe(SPEC_NODE_ID);
    expect(invoice.signatureValid).toBe(true);
  });

  it('decodes an invoice with features 9, 15 and 99, in lower and upper case alike', () => {
    for (const text of [SPEC.coffeeBeans, SPEC.coffeeBeans.toUpperCase()]) {
      const invoice = decodeBolt11(text);
      expect(invoice.amountMsat).toBe(2_500_000_000n);
      expect(invoice.description).toBe('coffee beans');
      expect(hex(invoice.paymentSecret)).toBe('11'.repeat(32));
      expect(hex(invoice.payeeNodeKey)).toBe(SPEC_NODE_ID);
      expect(invoice.signatureValid).toBe(true);
    }
  });

  it('builds the exact signing data the spec shows, and signing it with the spec key reproduces the invoice', () => {
    const { hrp, data } = parts(SPEC.coffee);
    const signingData = bolt11SigningData(hrp, data);
    expect(bytesToHex(signingData)).toBe('6c6e626332353030750b25fe64410d00004080c1014181c20240004080c1014181c20240004080c1014181c202404081a0a189031bab81031b7b33332b2818020f00');
    expect(bytesToHex(sha256(signingData))).toBe('3cd6ef07744040556e01be64f68fd9e1565fb47d78c42308b1ee005aca5a0d86');
    // Both sides use RFC 6979 nonces, so the signature (and whole string) is reproducible.
    expect(signWords(hrp, data, SPEC_PRIVATE_KEY)).toBe(SPEC.coffee);
  });

  it.each([
    ['an invalid checksum', SPEC_INVALID.badChecksum],
    ['a missing separator', SPEC_INVALID.noSeparator],
    ['mixed case', SPEC_INVALID.mixedCase],
    ['a string too short to hold a signature', SPEC_INVALID.tooShort],
    ['an invalid multiplier', SPEC_INVALID.badMultiplier],
    ['a sub-millisatoshi amount', SPEC_INVALID.subMillisatoshi],
  ])('rejects %s', (_case, text) => {
    expect(() => decodeBolt11(text)).toThrow(Bolt11Error);
  });

  it('reports an unrecoverable signature as invalid', () => {
    const invoice = decodeBolt11(SPEC_INVALID.unrecoverableSignature);
    expect(invoice.signatureValid).toBe(false);
    expect(invoice.payeeNodeKey).toBeUndefined();
  });
});

describe('encodeAmount', () => {
  it.each([
    [1n, '10p'], // 1 msat = 10 pico-BTC; p amounts must end in 0
    [15n, '150p'],
    [100n, '1n'],
    [10_000n, '100n'], // 10 sat
    [2_500_000n, '25u'], // 2500 sat
    [123_456_000n, '1234560n'], // 0.00123456 BTC
    [250_000_000n, '2500u'],
    [2_500_000_000n, '25m'],
    [250_000_000_000n, '2500m'], // 2.5 BTC
    [100_000_000_000n, '1'], // 1 BTC: no multiplier
    [2_100_000_000_000_000_000n, '21000000'],
  ])('%s msat -> %s', (msat, expected) => {
    expect(encodeAmount(msat)).toBe(expected);
  });

  it('rejects zero, negative and beyond-supply amounts', () => {
    expect(() => encodeAmount(0n)).toThrow(Bolt11Error);
    expect(() => encodeAmount(-1n)).toThrow(Bolt11Error);
    expect(() => encodeAmount(2_100_000_000_000_000_001n)).toThrow(Bolt11Error);
  });
});

describe('encodeBolt11', () => {
  const sign = privateKeySigner(SPEC_PRIVATE_KEY);

  it('puts network and amount in the prefix', () => {
    expect(encodeBolt11(sampleInput(), sign)).toMatch(/^lnbc25u1/);
    expect(encodeBolt11(sampleInput({ amountMsat: 1n }), sign)).toMatch(/^lnbc10p1/);
    expect(encodeBolt11(sampleInput({ network: 'tb' }), sign)).toMatch(/^lntb25u1/);
    expect(encodeBolt11(sampleInput({ network: 'bcrt' }), sign)).toMatch(/^lnbcrt25u1/);
  });

  it('round-trips every field and signs as the given key (read by an independent decoder)', () => {
    const input = sampleInput({ description: 'Café ☕ order #42', minFinalCltvExpiry: 144 });
    const invoice = readInvoice(encodeBolt11(input, sign));
    expect(invoice).toMatchObject({
      network: 'bc',
      amountMsat: 2_500_000n,
      timestamp: 1_700_000_000,
      description: 'Café ☕ order #42',
      expirySeconds: 900,
      minFinalCltvExpiry: 144,
      features: (1n << 8n) | (1n << 14n),
      signatureValid: true,
    });
    expect(invoice.paymentHash).toBe(hex(input.paymentHash));
    expect(invoice.paymentSecret).toBe(hex(input.paymentSecret));
    expect(invoice.payeeNodeKey).toBe(SPEC_NODE_ID);
  });

  it('writes the spec-shaped fields: minimal x and c, features as "9qrsgq", default c = 18', () => {
    const invoice = encodeBolt11(sampleInput({ expirySeconds: 60 }), sign);
    expect(invoice).toContain('xqzpu'); // x, length 2, 60 (as in the spec's coffee example)
    expect(invoice).toContain('cqpj'); // c, length 1, 18
    expect(invoice).toContain('9qrsgq'); // 9, length 3, bits 8 + 14 (as in the spec's donation example)
  });

  it('is not limited to 90 characters and accepts the longest description a d field can hold', () => {
    const invoice = encodeBolt11(sampleInput({ description: 'x'.repeat(639) }), sign);
    expect(invoice.length).toBeGreaterThan(1000);
    expect(readInvoice(invoice).description).toBe('x'.repeat(639));
  });

  it('rejects inputs it cannot encode faithfully', () => {
    expect(() => encodeBolt11(sampleInput({ description: 'x'.repeat(640) }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ paymentHash: new Uint8Array(31) }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ paymentSecret: new Uint8Array(33) }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ timestamp: 2 ** 35 }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ timestamp: 1.5 }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ expirySeconds: 0 }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ minFinalCltvExpiry: -1 }), sign)).toThrow(Bolt11Error);
    expect(() => encodeBolt11(sampleInput({ amountMsat: 0n }), sign)).toThrow(Bolt11Error);
  });
});

describe('decodeBolt11 with an explicit payee key (n field)', () => {
  const node = new SandboxLightningNode();
  const nodeKey = hexToBytes(node.nodeId);
  const otherKey = secp256k1.getPublicKey(SPEC_PRIVATE_KEY, true);

  /** Our invoice with an `n` field (tag 19, 53 words) added, re-signed by the sandbox key. */
  function withPayeeField(key: Uint8Array): string {
    const { hrp, data } = parts(encodeBolt11(sampleInput(), privateKeySigner(SANDBOX_NODE_PRIVATE_KEY)));
    const keyWords = bech32.toWords(key);
    return signWords(hrp, [...data, 19, keyWords.length >> 5, keyWords.length & 31, ...keyWords], SANDBOX_NODE_PRIVATE_KEY);
  }

  it('verifies against the n field when it names the signer', () => {
    const invoice = decodeBolt11(withPayeeField(nodeKey));
    expect(hex(invoice.payeeNodeKey)).toBe(node.nodeId);
    expect(invoice.signatureValid).toBe(true);
  });

  it('skips unknown and wrong-length fields and keeps the first payment hash', () => {
    const { hrp, data } = parts(encodeBolt11(sampleInput(), privateKeySigner(SANDBOX_NODE_PRIVATE_KEY)));
    const laterHash = bech32.toWords(new Uint8Array(32).fill(0xee));
    const timestamp = data.slice(0, 7);
    const fields = [
      ...[2, 0, 3, 0, 0, 0], // unknown tag 2
      ...[1, 1, 21, ...new Array<number>(53).fill(0)], // p of length 53, ahead of ours: must be skipped
      ...data.slice(7),
      ...[1, 1, 20, ...laterHash], // a second valid p: the first one wins
    ];
    const invoice = decodeBolt11(signWords(hrp, [...timestamp, ...fields], SANDBOX_NODE_PRIVATE_KEY));
    expect(invoice.paymentHash).toEqual(sampleInput().paymentHash);
    expect(invoice.signatureValid).toBe(true);
    expect(hex(invoice.payeeNodeKey)).toBe(node.nodeId);
  });

  it('refuses a field that runs past the data and one that cannot be read as bytes', () => {
    const { hrp, data } = parts(encodeBolt11(sampleInput(), privateKeySigner(SANDBOX_NODE_PRIVATE_KEY)));
    const truncated = signWords(hrp, [...data, 13, 0, 20, 0, 0, 0, 0], SANDBOX_NODE_PRIVATE_KEY); // d says 20 words, has 4
    expect(() => decodeBolt11(truncated)).toThrow(/truncated tagged field/);
    // 51 words leave 7 padding bits, which light-bolt11-decoder does not read as a byte string.
    const padded = signWords(hrp, [...data, 1, 1, 19, ...new Array<number>(51).fill(0)], SANDBOX_NODE_PRIVATE_KEY);
    expect(() => decodeBolt11(padded)).toThrow(Bolt11Error);
  });

  it('reports the signature invalid when the n field names someone else', () => {
    const invoice = decodeBolt11(withPayeeField(otherKey));
    expect(hex(invoice.payeeNodeKey)).toBe(bytesToHex(otherKey));
    expect(invoice.signatureValid).toBe(false);
  });
});

describe('SandboxLightningNode', () => {
  const now = new Date('2025-01-02T03:04:05.678Z');
  const node = new SandboxLightningNode();

  it('has a stable node id derived from the labelled sandbox key', () => {
    expect(node.nodeId).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(new SandboxLightningNode().nodeId).toBe(node.nodeId);
    expect(SANDBOX_NODE_PRIVATE_KEY).toEqual(sha256(new TextEncoder().encode('sandbox-lightning-node')));
  });

  it.each([
    [1n, 'lnbc10p1'],
    [10_000n, 'lnbc100n1'],
    [123_456_000n, 'lnbc1234560n1'],
    [250_000_000_000n, 'lnbc2500m1'],
  ])('issues a %s msat invoice that decodes back exactly', async (amountMsat, prefix) => {
    const created = await node.createInvoice({ amountMsat, description: 'LBTC order 7f3a', expirySeconds: 1800, now });
    expect(created.bolt11.startsWith(prefix)).toBe(true);
    expect(created.paymentHash).toMatch(/^[0-9a-f]{64}$/);

    const invoice = readInvoice(created.bolt11);
    expect(invoice.network).toBe('bc');
    expect(invoice.amountMsat).toBe(amountMsat);
    expect(invoice.description).toBe('LBTC order 7f3a');
    expect(invoice.expirySeconds).toBe(1800);
    expect(invoice.timestamp).toBe(Math.floor(now.getTime() / 1000));
    expect(invoice.minFinalCltvExpiry).toBe(18);
    expect(invoice.paymentHash).toBe(created.paymentHash);
    expect(invoice.paymentSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(invoice.signatureValid).toBe(true);
    expect(invoice.payeeNodeKey).toBe(node.nodeId);
  });

  it('uses a fresh payment hash and secret per invoice', async () => {
    const input = { amountMsat: 10_000n, description: 'same', expirySeconds: 600, now };
    const [a, b] = await Promise.all([node.createInvoice(input), node.createInvoice(input)]);
    expect(a!.paymentHash).not.toBe(b!.paymentHash);
    expect(readInvoice(a!.bolt11).paymentSecret).not.toBe(readInvoice(b!.bolt11).paymentSecret);
  });

  it('issues invoices on the configured network', async () => {
    const testnet = new SandboxLightningNode({ network: 'tb' });
    const { bolt11 } = await testnet.createInvoice({ amountMsat: 10_000n, description: 't', expirySeconds: 60, now });
    expect(bolt11).toMatch(/^lntb100n1/);
    expect(readInvoice(bolt11).network).toBe('tb');
  });

  it('fails the checksum when any single character of an invoice changes', async () => {
    const { bolt11 } = await node.createInvoice({ amountMsat: 123_456_000n, description: 'tamper', expirySeconds: 600, now });
    const alphabet = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
    for (let i = bolt11.lastIndexOf('1') + 1; i < bolt11.length; i++) {
      const replacement = alphabet[(alphabet.indexOf(bolt11[i]!) + 1) % 32]!;
      const tampered = bolt11.slice(0, i) + replacement + bolt11.slice(i + 1);
      expect(() => decodeBolt11(tampered)).toThrow(Bolt11Error);
    }
    // In the human-readable part too: the amount is covered by the checksum.
    expect(() => decodeBolt11(bolt11.replace('lnbc1234560n1', 'lnbc1234570n1'))).toThrow(Bolt11Error);
  });

  it('no longer recovers to the sandbox node when data is altered and the checksum recomputed', async () => {
    const { bolt11 } = await node.createInvoice({ amountMsat: 10_000n, description: 'pay me', expirySeconds: 600, now });
    const { hrp, data, signature } = parts(bolt11);
    const forgedAmount = bech32.encode('lnbc1m', [...data, ...signature], false);
    const flipped = [...data];
    flipped[flipped.length - 1]! ^= 1; // last word of the features field
    const forgedData = bech32.encode(hrp, [...flipped, ...signature], false);
    for (const forged of [forgedAmount, forgedData]) {
      const invoice = decodeBolt11(forged);
      expect(invoice.signatureValid && hex(invoice.payeeNodeKey) === node.nodeId).toBe(false);
    }
  });

  it('makes a lightning: URI (lowercase, no //)', () => {
    expect(lightningUri('LNBC10P1ABC')).toBe('lightning:lnbc10p1abc');
  });
});

describe('round-trip properties (read by an independent decoder)', () => {
  const sign = privateKeySigner(SANDBOX_NODE_PRIVATE_KEY);
  const nodeId = new SandboxLightningNode().nodeId;

  it('preserves any amount from 1 msat to 21 million BTC exactly', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 2_100_000_000_000_000_000n }), (amountMsat) => {
        const bolt11 = encodeBolt11(sampleInput({ amountMsat }), sign);
        const amount = /^lnbc(\d+)([munp]?)1/.exec(bolt11)!;
        expect(amount[1]).not.toMatch(/^0/);
        if (amount[2] === 'p') expect(amount[1]).toMatch(/0$/);
        const invoice = readInvoice(bolt11);
        expect(invoice.amountMsat).toBe(amountMsat);
        expect(invoice.signatureValid).toBe(true);
        expect(invoice.payeeNodeKey).toBe(nodeId);
      }),
    );
  });

  it('preserves descriptions, timestamps, expiries and hashes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.integer({ min: 0, max: 2 ** 35 - 1 }),
        fc.integer({ min: 1, max: 2 ** 32 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (description, timestamp, expirySeconds, paymentHash) => {
          const invoice = readInvoice(encodeBolt11(sampleInput({ description, timestamp, expirySeconds, paymentHash }), sign));
          expect(invoice).toMatchObject({ description, timestamp, expirySeconds, signatureValid: true });
          expect(invoice.paymentHash).toBe(hex(paymentHash));
        },
      ),
    );
  });
});
