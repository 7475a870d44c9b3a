// Is a webhook delivery from the service? HMAC-SHA256 over the raw body bytes as received, compared in constant
// time. The spec names only the algorithm and the header (X-Service-Signature); the encoding, a prefix, several
// signatures at once (a secret being rotated) and a timestamp are "not shown", so every common form is accepted:
// hex or base64, `sha256=` / `v1=` / `v1,` prefixes, Stripe's `t=…,v1=…`, Standard Webhooks' headers.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADERS = ['x-service-signature', 'webhook-signature'] as const;
/** Headers that may carry the time of the delivery (seconds or milliseconds since 1970, or ISO 8601). */
export const TIMESTAMP_HEADERS = ['x-service-timestamp', 'webhook-timestamp', 'x-timestamp'] as const;
/** Headers that may carry the delivery's own id. */
export const ID_HEADERS = ['webhook-id', 'x-service-delivery', 'x-service-event-id', 'x-delivery-id'] as const;

export const DEFAULT_TOLERANCE_SECONDS = 300;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** Why a delivery is refused, in words safe for a log line (never a secret or an expected value). */
export type Refusal =
  'no signature header' | 'no signature in the header' | 'signature does not match' | 'timestamp unreadable' | 'timestamp too old' | 'timestamp in the future';

/**
 * `timestamp` and `id` are those the signature covers (`t.body`, `id.t.body`): a header the signature does not cover
 * could be set by anyone replaying a captured body, so it is not trusted, and the payload's own time and id apply.
 */
export type Verdict = { ok: true; timestamp: Date | null; id: string | null } | { ok: false; reason: Refusal };

export interface VerifyInput {
  /** Every secret accepted now: several while one is rotated. */
  secrets: readonly string[];
  /** The body exactly as received. */
  body: Buffer;
  /** Request headers, names in lower case (as node:http gives them). */
  headers: Headers;
  now: Date;
  /** A delivery whose timestamp is further than this from `now`, either way, is refused. */
  toleranceSeconds: number;
}

function header(headers: Headers, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = headers[name];
    const text = Array.isArray(value) ? value.join(',') : value;
    if (text !== undefined && text.trim() !== '') return text.trim();
  }
  return undefined;
}

/**
 * Seconds or milliseconds since 1970 (by size), or an ISO 8601 date; null when it is none of them, or no date at
 * all (1e20, 9999999999999999 ms: beyond what a date can hold), which then can never pass for a fresh one.
 */
export function parseTimestamp(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    const date = new Date(value > 1e12 ? value : value * 1000);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d{9,16}$/.test(text)) return parseTimestamp(Number(text));
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time);
}

/** The signatures and the `t=` time a signature header carries, in any of the forms above. */
export function parseSignatureHeader(value: string): { signatures: Buffer[]; time: string | null } {
  const signatures: Buffer[] = [];
  let time: string | null = null;
  const parts = value.split(/[\s,]+/).filter((part) => part !== '');
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] as string;
    const stamped = /^t=(\d+)$/i.exec(part);
    if (stamped !== null) {
      time = stamped[1] as string;
      continue;
    }
    // Standard Webhooks: "v1,<base64>" (split at the comma above).
    if (/^v\d+[a-z]?$/i.test(part)) continue;
    const prefixed = /^(?:sha256|hmac-sha256|v\d+[a-z]?)[=:](.*)$/i.exec(part);
    const decoded = decodeDigest(prefixed === null ? part : (prefixed[1] as string));
    if (decoded !== null) signatures.push(decoded);
  }
  return { signatures, time };
}

/** A 32-byte digest written in hex, base64 or base64url; null for anything else. */
function decodeDigest(text: string): Buffer | null {
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
  if (!/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === 32 ? bytes : null;
}

const hmac = (key: string | Buffer, ...parts: Array<string | Buffer>): Buffer => {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
};

/** The keys a secret may stand for: as written, and for Standard Webhooks' `whsec_<base64>`, the decoded bytes. */
function keysOf(secret: string): Array<string | Buffer> {
  const keys: Array<string | Buffer> = [secret];
  const encoded = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret)?.[1];
  if (encoded !== undefined && encoded.length % 4 === 0) keys.push(Buffer.from(encoded, 'base64'));
  return keys;
}

/** What a form of the signed bytes covers besides the body. */
type Covers = 'body' | 'time' | 'id and time';

/** The bytes a sender may have signed: the body alone, `t.body`, or Standard Webhooks' `id.t.body`. */
function signedForms(body: Buffer, time: string | null, id: string | undefined): Array<{ covers: Covers; parts: Array<string | Buffer> }> {
  const forms: Array<{ covers: Covers; parts: Array<string | Buffer> }> = [{ covers: 'body', parts: [body] }];
  if (time !== null) {
    forms.push({ covers: 'time', parts: [`${time}.`, body] });
    if (id !== undefined) forms.push({ covers: 'id and time', parts: [`${id}.${time}.`, body] });
  }
  return forms;
}

/**
 * Checks the signature against every secret and every signed form, in constant time per comparison; then, when
 * the delivery says when it was sent (a header or `t=`), that it is within the tolerance. A payload's own
 * timestamp is checked by the caller once the body is read as JSON (`checkFreshness`).
 */
export function verifyDelivery(input: VerifyInput): Verdict {
  const value = header(input.headers, SIGNATURE_HEADERS);
  if (value === undefined) return { ok: false, reason: 'no signature header' };
  const { signatures, time: signedTime } = parseSignatureHeader(value);
  if (signatures.length === 0) return { ok: false, reason: 'no signature in the header' };
  const time = signedTime ?? header(input.headers, TIMESTAMP_HEADERS) ?? null;
  const id = header(input.headers, ID_HEADERS);
  const matched = new Set<Covers>();
  for (const key of input.secrets.flatMap(keysOf)) {
    for (const form of signedForms(input.body, time, id)) {
      const expected = hmac(key, ...form.parts);
      // Every candidate is compared, match or not: the time taken does not depend on which one matched.
      for (const signature of signatures) {
        if (signature.length === expected.length && timingSafeEqual(signature, expected)) matched.add(form.covers);
      }
    }
  }
  if (matched.size === 0) return { ok: false, reason: 'signature does not match' };
  const signedId = matched.has('id and time') ? (id ?? null) : null;
  // A time the signature does not cover proves nothing: the payload's own time is checked instead (by the caller).
  if (time === null || (!matched.has('time') && !matched.has('id and time'))) return { ok: true, timestamp: null, id: null };
  const timestamp = parseTimestamp(time);
  if (timestamp === null) return { ok: false, reason: 'timestamp unreadable' };
  const freshness = checkFreshness(timestamp, input.now, input.toleranceSeconds);
  return freshness === null ? { ok: true, timestamp, id: signedId } : { ok: false, reason: freshness };
}

/** null when `timestamp` is within `toleranceSeconds` of `now`, else why not. */
export function checkFreshness(timestamp: Date, now: Date, toleranceSeconds: number): Refusal | null {
  const skew = (now.getTime() - timestamp.getTime()) / 1000;
  // An invalid date compares false with everything: it would pass both checks below.
  if (Number.isNaN(skew)) return 'timestamp unreadable';
  if (skew > toleranceSeconds) return 'timestamp too old';
  if (skew < -toleranceSeconds) return 'timestamp in the future';
  return null;
}

/** A signature header for `body`, as the service's simplest form would send it (hex, no prefix). */
export function signBody(secret: string, body: string | Buffer): string {
  return hmac(secret, typeof body === 'string' ? Buffer.from(body) : body).toString('hex');
}
