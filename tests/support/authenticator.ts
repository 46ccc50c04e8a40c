import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software passkey authenticator for HTTP-level tests, written from the WebAuthn spec (not
 * from the library under test): P-256 keys from node:crypto, authenticator data and a 'none'
 * attestation in a minimal CBOR encoder of its own, ES256 signatures over authData || SHA-256(clientDataJSON).
 * The browser journey uses Chromium's own virtual authenticator instead.
 */

type Cbor = number | string | Uint8Array | CborArray | CborMap | { [key: string]: Cbor };
interface CborArray extends Array<Cbor> {}
interface CborMap extends Map<Cbor, Cbor> {}

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  if (length < 65536) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const out = Buffer.alloc(5);
  out[0] = (major << 5) | 26;
  out.writeUInt32BE(length, 1);
  return out;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}

export interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export class SoftwareAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(readonly origin: string) {}

  private get rpId(): string {
    return new URL(this.origin).hostname;
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin = this.origin): string {
    return JSON.stringify({ type, challenge, origin, crossOrigin: false });
  }

  /** What navigator.credentials.create would give the page (RegistrationResponseJSON). */
  create(options: CreationOptions, overrides: { origin?: string } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const credentialId = randomBytes(32);
    const coseKey = new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([sha256(options.rp.id ?? this.rpId), Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), length, credentialId, cbor(coseKey)]);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, overrides.origin);
    this.credentials.push({ id: credentialId, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(credentialId),
      rawId: b64url(credentialId),
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })), transports: ['internal'] },
    };
  }

  /** What navigator.credentials.get would give the page (AuthenticationResponseJSON), with the n-th credential. */
  get(options: RequestOptions, index = 0, overrides: { origin?: string; counter?: number } = {}) {
    const credential = this.credentials[index];
    if (!credential) throw new Error('no such credential');
    credential.counter = overrides.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([sha256(options.rpId ?? this.rpId), Buffer.from([0x05]), counter]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }
}
