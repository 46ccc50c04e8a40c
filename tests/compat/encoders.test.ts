/**
 * The encoders and token schemes the replays use, checked against the real runtimes: each
 * golden below is the output of PHP 8.2 (`php -r`) or CPython 3 (`python3 -c`) for the input
 * written beside it, recorded once (base64 of the exact bytes); phpass against the vector of
 * Openwall's own test suite.
 */
import { describe, expect, it } from 'vitest';
import { Float, goJsonMarshal, phpJsonEncode, pythonJsonDumps } from './support/encoders';
import { md5Token, phpHttpBuildQuery, wpCheckPassword, wpHashPassword } from './support/clients';

const golden = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');

describe('the client encoders reproduce the real runtimes byte for byte', () => {
  it("PHP's json_encode (escaped slashes, \\u unicode, raw DEL, floats, [] for an empty array)", () => {
    // php -r 'echo json_encode(["merchant_order_id"=>"WHMCS_42","price_amount"=>"19.90","p2"=>(double)10.99,
    //   "p3"=>(double)10,"p4"=>0.1+0.2,"i"=>7,"title"=>"支付单号：42","d"=>"充值：19.90 元",
    //   "u"=>"https://shop.example/?wc-api=WC_Gateway_MPWP&x=<y>","e"=>"é😀\u{2028}","c"=>"\x01\x7f\t\n\"\\/",
    //   "b"=>true,"f"=>false,"n"=>null,"z"=>[],"o"=>["k"=>1]]);'
    const value = {
      merchant_order_id: 'WHMCS_42',
      price_amount: '19.90',
      p2: new Float(10.99),
      p3: new Float(10),
      p4: new Float(0.1 + 0.2),
      i: 7,
      title: '支付单号：42',
      d: '充值：19.90 元',
      u: 'https://shop.example/?wc-api=WC_Gateway_MPWP&x=<y>',
      e: 'é😀\u2028',
      c: '\x01\x7f\t\n"\\/',
      b: true,
      f: false,
      n: null,
      z: [],
      o: { k: 1 },
    };
    expect(phpJsonEncode(value)).toBe(
      golden(
        'eyJtZXJjaGFudF9vcmRlcl9pZCI6IldITUNTXzQyIiwicHJpY2VfYW1vdW50IjoiMTkuOTAiLCJwMiI6MTAuOTksInAzIjoxMCwicDQiOjAuMzAwMDAwMDAwMDAwMDAwMDQsImkiOjcsInRpdGxlIjoiXHU2NTJmXHU0ZWQ4XHU1MzU1XHU1M2Y3XHVmZjFhNDIiLCJkIjoiXHU1MTQ1XHU1MDNjXHVmZjFhMTkuOTAgXHU1MTQzIiwidSI6Imh0dHBzOlwvXC9zaG9wLmV4YW1wbGVcLz93Yy1hcGk9V0NfR2F0ZXdheV9NUFdQJng9PHk+IiwiZSI6Ilx1MDBlOVx1ZDgzZFx1ZGUwMFx1MjAyOCIsImMiOiJcdTAwMDF/XHRcblwiXFxcLyIsImIiOnRydWUsImYiOmZhbHNlLCJuIjpudWxsLCJ6IjpbXSwibyI6eyJrIjoxfX0=',
      ),
    );
  });

  it("Python's json.dumps (', ' and ': ' separators, ensure_ascii, 10.0 and 1e-05)", () => {
    // python3 -c 'import json; print(json.dumps({"merchat_order_id":"py-1","price_amount":0.01,"p3":10.0,
    //   "p5":0.00001,"i":7,"title":"支付单号：42","u":"https://shop.example/cb?a=1&b=<2>","e":"é😀\u2028",
    //   "c":"\x01\x7f\t\n\"\\/","b":True,"f":False,"n":None,"z":[],"o":{"k":1}}))'
    const value = {
      merchat_order_id: 'py-1',
      price_amount: new Float(0.01),
      p3: new Float(10),
      p5: new Float(0.00001),
      i: 7,
      title: '支付单号：42',
      u: 'https://shop.example/cb?a=1&b=<2>',
      e: 'é😀\u2028',
      c: '\x01\x7f\t\n"\\/',
      b: true,
      f: false,
      n: null,
      z: [],
      o: { k: 1 },
    };
    expect(pythonJsonDumps(value)).toBe(
      golden(
        'eyJtZXJjaGF0X29yZGVyX2lkIjogInB5LTEiLCAicHJpY2VfYW1vdW50IjogMC4wMSwgInAzIjogMTAuMCwgInA1IjogMWUtMDUsICJpIjogNywgInRpdGxlIjogIlx1NjUyZlx1NGVkOFx1NTM1NVx1NTNmN1x1ZmYxYTQyIiwgInUiOiAiaHR0cHM6Ly9zaG9wLmV4YW1wbGUvY2I/YT0xJmI9PDI+IiwgImUiOiAiXHUwMGU5XHVkODNkXHVkZTAwXHUyMDI4IiwgImMiOiAiXHUwMDAxXHUwMDdmXHRcblwiXFwvIiwgImIiOiB0cnVlLCAiZiI6IGZhbHNlLCAibiI6IG51bGwsICJ6IjogW10sICJvIjogeyJrIjogMX19',
      ),
    );
  });

  it("Go's json.Marshal escapes HTML characters and line separators, keeps UTF-8", () => {
    // Documented encoding/json behaviour (HTMLEscape): <, >, & as \u003c, \u003e, \u0026.
    expect(goJsonMarshal({ callback_url: 'https://shop.example/notify?a=1&b=<2>', title: '订单标题\u2028', price_amount: new Float(9.99), user_id: 0, is_self: false })).toBe(
      '{"callback_url":"https://shop.example/notify?a=1\\u0026b=\\u003c2\\u003e","title":"订单标题\\u2028","price_amount":9.99,"user_id":0,"is_self":false}',
    );
  });
});

describe('the callback token schemes', () => {
  it("PHP's http_build_query (urlencode: + for space, %7E for ~)", () => {
    // php -r 'echo http_build_query(["merchant_order_id"=>"WHMCS_42 a~b/c","secret"=>"s3cr3t+/="]);'
    expect(phpHttpBuildQuery({ merchant_order_id: 'WHMCS_42 a~b/c', secret: 's3cr3t+/=' })).toBe(golden('bWVyY2hhbnRfb3JkZXJfaWQ9V0hNQ1NfNDIrYSU3RWIlMkZjJnNlY3JldD1zM2NyM3QlMkIlMkYlM0Q='));
  });

  it("WHMCS's md5 token (ksorted merchant_order_id, secret, type=FIAT)", () => {
    // php -r '$s="merchant_order_id=WHMCS_42&secret=s3cr3t&type=FIAT"; echo strtolower(md5(md5($s)."s3cr3t"));'
    expect(md5Token('s3cr3t', 'WHMCS_42', { type: 'FIAT' })).toBe('f95a01711f73f26821fbfa455ba2247e');
    expect(md5Token('s3cr3t', 'WHMCS_42', { type: 'FIAT', encoder: 'go' })).toBe('f95a01711f73f26821fbfa455ba2247e');
    expect(md5Token('s3cr3t', 'WHMCS_43', { type: 'FIAT' })).not.toBe('f95a01711f73f26821fbfa455ba2247e');
  });

  it('phpass: the vector of its own test suite, and a fresh hash round-trips', () => {
    expect(wpCheckPassword('test12345', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0')).toBe(true);
    expect(wpCheckPassword('test12346', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0')).toBe(false);
    expect(wpCheckPassword('test12345', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L1')).toBe(false);
    const hash = wpHashPassword('wc_order_abc');
    expect(hash).toMatch(/^\$P\$B[./0-9A-Za-z]{30}$/);
    expect(wpCheckPassword('wc_order_abc', hash)).toBe(true);
    expect(wpCheckPassword('wc_order_abd', hash)).toBe(false);
  });
});
