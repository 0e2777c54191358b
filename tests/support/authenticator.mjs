// A software passkey authenticator for the portal's tests over HTTP and in the
// browser-free API runs: one P-256 credential (ES256), `none` attestation, user
// present and verified, answering the portal's options as a browser's
// `navigator.credentials` would, in the JSON of `PublicKeyCredential.toJSON()`.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const b64 = (bytes) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes) => createHash('sha256').update(bytes).digest();

/** The CBOR head of major type `major` with argument `n`. */
function head(major, n) {
  const m = major << 5;
  if (n < 24) return Buffer.from([m | n]);
  if (n < 0x100) return Buffer.from([m | 0x18, n]);
  const b = Buffer.alloc(3); b[0] = m | 0x19; b.writeUInt16BE(n, 1); return b;
}
const int = (n) => (n >= 0 ? head(0, n) : head(1, -1 - n));
const bytes = (b) => Buffer.concat([head(2, b.length), Buffer.from(b)]);
const text = (t) => Buffer.concat([head(3, Buffer.byteLength(t)), Buffer.from(t)]);

export class SoftAuthenticator {
  /** A fresh key and credential, on a page of `origin`. */
  constructor(origin) {
    this.origin = origin;
    ({ privateKey: this.privateKey, publicKey: this.publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
    this.credentialId = randomBytes(32);
    this.userHandle = null;
    this.counter = 0;
  }

  clientData(type, challenge, crossOrigin = false) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin }));
  }

  authData(rpId, flags, attested = Buffer.alloc(0)) {
    const counter = Buffer.alloc(4); counter.writeUInt32BE(this.counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), counter, attested]);
  }

  /** Answers `navigator.credentials.create({ publicKey: options })`. */
  create(options) {
    this.userHandle = Buffer.from(options.user.id, 'base64url');
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = Buffer.concat([head(5, 5), int(1), int(2), int(3), int(-7), int(-1), int(1),
      int(-2), bytes(Buffer.from(jwk.x, 'base64url')), int(-3), bytes(Buffer.from(jwk.y, 'base64url'))]);
    const idLength = Buffer.alloc(2); idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, coseKey]);
    const authData = this.authData(options.rp.id, 0x01 | 0x04 | 0x40, attested);
    const attestation = Buffer.concat([head(5, 3), text('fmt'), text('none'), text('attStmt'), head(5, 0),
      text('authData'), bytes(authData)]);
    return {
      id: b64(this.credentialId), rawId: b64(this.credentialId), type: 'public-key',
      authenticatorAttachment: 'platform', clientExtensionResults: {},
      response: {
        clientDataJSON: b64(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64(attestation), transports: ['internal'],
      },
    };
  }

  /**
   * Answers `navigator.credentials.get({ publicKey: options })`, the counter one
   * higher. `forgery` makes a signed assertion an attacker's client could send:
   * other `flags` (honest: user present and verified, 0x05), another `rpId`'s hash,
   * another client data `type`, `crossOrigin: true`.
   */
  get(options, { flags = 0x01 | 0x04, rpId = options.rpId, type = 'webauthn.get', crossOrigin = false } = {}) {
    this.counter += 1;
    const authData = this.authData(rpId, flags);
    const clientData = this.clientData(type, options.challenge, crossOrigin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: b64(this.credentialId), rawId: b64(this.credentialId), type: 'public-key',
      authenticatorAttachment: 'platform', clientExtensionResults: {},
      response: {
        clientDataJSON: b64(clientData), authenticatorData: b64(authData),
        signature: b64(signature), userHandle: this.userHandle && b64(this.userHandle),
      },
    };
  }
}
