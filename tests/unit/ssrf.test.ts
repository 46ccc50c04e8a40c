import { afterAll, describe, expect, it } from 'vitest';
import { recordAttack } from '../support/security-report';
import { checkCallbackUrl, forbiddenAddressReason } from '#shared/callbacks/ssrf';
import { InvalidParameterError } from '#shared/domain/errors';
import { statusOf } from '#shared/http/errors';

const STRICT = { allowLoopback: false };
const LOOPBACK = { allowLoopback: true };

/** The message checkCallbackUrl throws for `url`, or undefined when it accepts it. */
function refusal(url: string, options = STRICT): string | undefined {
  try {
    checkCallbackUrl(url, options);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParameterError);
    expect((error as InvalidParameterError).code).toBe('PARAMETERS_INVALID');
    expect(statusOf(error as InvalidParameterError)).toBe(400);
    return (error as Error).message;
  }
}

describe('the URL parser canonicalizes odd IPv4 spellings (checkCallbackUrl relies on it)', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.0.0.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
    ['http://2852039166/', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://0xa9fea9fe/', '169.254.169.254'],
    ['http://4294967295/', '255.255.255.255'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('%s has host %s', (url, host) => {
    expect(new URL(url).hostname).toBe(host);
  });
});

describe('checkCallbackUrl refuses', () => {
  const refused: Array<[url: string, reason: RegExp]> = [
    // RFC 1918
    ['http://10.0.0.1/cb', /private/],
    ['http://10.255.255.255/', /private/],
    ['http://172.16.0.1/', /private/],
    ['http://172.31.255.254/', /private/],
    ['http://192.168.0.1/', /private/],
    ['https://192.168.1.100:8443/hook', /private/],
    // loopback, in every spelling
    ['http://127.0.0.1/', /loopback/],
    ['http://127.255.255.254/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://0177.0.0.1/', /loopback/],
    ['http://0x7f.0.0.1/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://127.0.0.1.:8080/', /loopback/],
    ['http://[::1]/', /loopback/],
    ['http://[0:0:0:0:0:0:0:1]:3000/', /loopback/],
    // unspecified
    ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    // cloud metadata, in every spelling
    ['http://169.254.169.254/latest/meta-data/', /metadata/],
    ['http://2852039166/', /metadata/],
    ['http://0251.0376.0251.0376/', /metadata/],
    ['http://0xa9fea9fe/', /metadata/],
    ['http://[::ffff:169.254.169.254]/', /metadata.*IPv4-mapped/],
    ['http://[fd00:ec2::254]/', /metadata/],
    ['http://169.254.170.2/v2/credentials', /link-local/],
    // IPv4-mapped / IPv4-compatible / translated IPv6
    ['http://[::ffff:7f00:1]/', /loopback.*IPv4-mapped/],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', /loopback.*IPv4-mapped/],
    ['http://[::ffff:10.0.0.1]/', /private.*IPv4-mapped/],
    ['http://[::ffff:8.8.8.8]/', /IPv4-mapped/],
    ['http://[::127.0.0.1]/', /IPv4-compatible/],
    ['http://[::ffff:0:7f00:1]/', /IPv4-translated/],
    // 6to4, Teredo and NAT64 wrappers of internal addresses
    ['http://[2002:a9fe:a9fe::1]/', /6to4/],
    ['http://[2002:7f00:1::]/', /6to4/],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /Teredo/],
    ['http://[64:ff9b::a9fe:a9fe]/', /NAT64/],
    ['http://[64:ff9b::7f00:1]/', /NAT64/],
    // IPv6 unique-local, link-local, site-local, multicast, documentation, unallocated
    ['http://[fc00::1]/', /unique-local/],
    ['http://[fdff:ffff::1]/', /unique-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://[febf::1]/', /link-local/],
    ['http://[fec0::1]/', /site-local/],
    ['http://[ff02::1]/', /multicast/],
    ['http://[2001:db8::1]/', /reserved or documentation/],
    ['http://[100::1]/', /discard/],
    ['http://[4000::1]/', /global unicast/],
    // other special-purpose IPv4
    ['http://100.64.0.1/', /carrier-grade NAT/],
    ['http://100.127.255.254/', /carrier-grade NAT/],
    ['http://169.254.0.1/', /link-local/],
    ['http://224.0.0.1/', /multicast/],
    ['http://239.255.255.250/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://4294967295/', /broadcast/],
    ['http://192.0.2.1/', /reserved/],
    ['http://198.51.100.7/', /reserved/],
    ['http://203.0.113.9/', /reserved/],
    ['http://198.18.0.1/', /reserved/],
    ['http://198.19.255.1/', /reserved/],
    ['http://192.0.0.8/', /reserved/],
    ['http://240.0.0.1/', /reserved/],
    ['http://192.31.196.1/', /an AS112 address/],
    ['http://192.52.193.1/', /an AMT relay address/],
    ['http://[2001:2::1]/', /a benchmarking address \(2001:2::\/48\)/],
    // ranges ipaddr.js knows and the guard names only by ipaddr's name
    ['http://[2001:3::1]/', /a special-purpose address \(amt\)/],
    ['http://[2001:4:112::1]/', /a special-purpose address \(as112v6\)/],
    // internal names
    ['http://localhost/', /internal host name \(\.localhost\)/],
    ['http://LOCALHOST./', /internal host name/],
    ['http://localhost:8080/cb', /internal host name/],
    ['http://foo.localhost/', /internal host name \(\.localhost\)/],
    ['http://metadata.google.internal/computeMetadata/v1/', /is a cloud metadata host$/],
    ['http://metadata.google.internal./', /is a cloud metadata host$/],
    ['http://metadata/', /is a cloud metadata host$/],
    ['http://ip-10-0-0-1.ec2.internal/', /\.internal/],
    ['http://printer.local/', /\.local\)/],
    ['http://router.home.arpa/', /\(\.home\.arpa\)/],
    ['http://1.0.0.127.in-addr.arpa/', /internal host name \(\.arpa\)/],
    ['http://nas.localdomain/', /internal host name \(\.localdomain\)/],
    ['http://router.lan/', /internal host name \(\.lan\)/],
    ['http://localhost../', /internal host name \(\.localhost\)/],
    ['http://fileserver/', /fully qualified/],
    ['http://wiki.intranet/', /\.intranet/],
    // schemes, shape, credentials, length
    ['ftp://shop.example.com/callback', /http or https/],
    ['file:///etc/passwd', /http or https/],
    ['javascript:alert(1)', /http or https/],
    ['gopher://shop.example.com:70/_', /http or https/],
    ['data:application/json,{}', /http or https/],
    ['//shop.example.com/callback', /http or https/],
    ['/callback', /http or https/],
    ['shop.example.com/callback', /http or https/],
    ['', /http or https/],
    ['https://user:pass@shop.example.com/callback', /credentials/],
    ['https://user@shop.example.com/callback', /credentials/],
    ['https://:secret@shop.example.com/callback', /credentials/],
    [`https://shop.example.com/${'a'.repeat(2048)}`, /at most 2048/],
    [' https://shop.example.com/callback', /spaces or control/],
    ['https://shop.example.com/call\nback', /spaces or control/],
    ['https://shop.\texample.com/', /spaces or control/],
    ['http://1.2.3.09/', /http or https/],
  ];

  it('has a corpus of at least 40 URLs', () => {
    expect(refused.length).toBeGreaterThanOrEqual(40);
  });

  const seen = { refused: 0, reasons: new Set<string>() };
  afterAll(() => {
    recordAttack('ssrf-at-creation', {
      attack: 'Callback URLs aimed inside: private, loopback (every IPv4 spelling), link-local/metadata, reserved, IPv4-mapped IPv6, other schemes, credentials, control characters',
      count: refused.length,
      outcome: `${seen.refused} of ${refused.length} refused at creation, 400 PARAMETERS_INVALID naming callback_url and the reason (${seen.reasons.size} distinct reasons); checked again at connect time against DNS rebinding (tests/integration/ssrf-delivery.test.ts)`,
      test: 'tests/unit/ssrf.test.ts',
    });
  });

  it.each(refused)('%s', (url, reason) => {
    const message = refusal(url);
    expect(message).toBeDefined();
    expect(message).toMatch(/^callback_url /);
    expect(message).toMatch(reason);
    seen.refused += 1;
    seen.reasons.add(reason.source);
  });
});

describe('checkCallbackUrl accepts public URLs', () => {
  it.each([
    'https://shop.example.com/callback',
    'http://shop.example.com/callback?order=1&x=%20y',
    'https://shop.example.com:8443/hooks/crypto-pay',
    'http://8.8.8.8/',
    'https://1.1.1.1/cb',
    'http://93.184.215.14:8080/x',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://11.0.0.1/',
    'https://[2606:4700:4700::1111]/x',
    'https://[2001:4860:4860::8888]:443/',
    'https://xn--mnchen-3ya.example/cb',
    'https://münchen.example/cb',
    'https://localhost.example.com/cb',
    'https://internal.example.com/cb',
    'https://shop.example.com./callback',
    `https://shop.example.com/${'a'.repeat(2048 - 'https://shop.example.com/'.length)}`,
  ])('%s', (url) => {
    expect(refusal(url)).toBeUndefined();
  });
});

describe('checkCallbackUrl with allowLoopback', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:3000/callback',
    'http://127.1.2.3/',
    'http://2130706433/',
    'http://localhost/',
    'http://localhost:4000/cb',
    'http://[::1]/',
    'http://[::1]:8080/cb',
    'https://shop.example.com/callback',
  ])('accepts %s', (url) => {
    expect(refusal(url, LOOPBACK)).toBeUndefined();
  });

  it.each([
    ['http://10.0.0.1/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://169.254.169.254/', /metadata/],
    ['http://[fd00:ec2::254]/', /metadata/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://foo.localhost/', /internal host name/],
    ['http://metadata.google.internal/', /metadata/],
    ['http://[fe80::1]/', /link-local/],
    ['http://100.64.0.1/', /carrier-grade/],
  ])('still refuses %s', (url, reason) => {
    expect(refusal(url, LOOPBACK)).toMatch(reason);
  });
});

describe('the connect-time classifier (forbiddenAddressReason)', () => {
  it.each([
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '0.0.0.0',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '::ffff:10.1.2.3',
    '::7f00:1',
    '::ffff:0:7f00:1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1',
    'ff02::1',
    '64:ff9b::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2001::1',
    '2001:db8::1',
    '4000::1',
    // inet_aton spellings, in case one ever reaches the classifier unparsed
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    // not addresses at all: fail closed
    'localhost',
    '',
    '256.1.1.1',
  ])('%s is forbidden', (ip) => {
    expect(forbiddenAddressReason(ip, STRICT)).toEqual(expect.any(String));
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '::ffff:8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::200e'])('%s is allowed', (ip) => {
    expect(forbiddenAddressReason(ip, STRICT)).toBeUndefined();
    expect(forbiddenAddressReason(ip, LOOPBACK)).toBeUndefined();
  });

  it('allows loopback, IPv4-mapped included, only when asked, and nothing else private', () => {
    for (const ip of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(forbiddenAddressReason(ip, STRICT)).toEqual(expect.any(String));
      expect(forbiddenAddressReason(ip, LOOPBACK)).toBeUndefined();
    }
    for (const ip of ['10.0.0.1', '169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '::', 'fe80::1']) {
      expect(forbiddenAddressReason(ip, LOOPBACK)).toEqual(expect.any(String));
    }
  });
});

describe('forbiddenAddressReason', () => {
  it('reads an IPv6 literal in brackets, as URLs and logs write it, and refuses half a bracket pair', () => {
    expect(forbiddenAddressReason('[2606:4700:4700::1111]', STRICT)).toBeUndefined();
    expect(forbiddenAddressReason('[::1]', STRICT)).toBe('the loopback address (::1)');
    for (const ip of ['[8.8.8.8', '8.8.8.8]', '[2606:4700:4700::1111', '2606:4700:4700::1111]', 'not-an-ip']) {
      expect(forbiddenAddressReason(ip, STRICT)).toBe('not a valid IP address');
    }
  });
});
