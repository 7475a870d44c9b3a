import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventKind, readEvent } from '../../src/events/payload.js';
import { parseSignatureHeader, parseTimestamp, verifyDelivery, type VerifyInput } from '../../src/events/verify.js';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef';
const BODY = Buffer.from('{"id":"evt_000001","event":"score.change","created_at":"2026-11-04T06:00:00.000Z","data":{"project_id":7}}');
const NOW = new Date('2026-11-04T06:00:30.000Z');
const mac = (secret: string | Buffer, data: string | Buffer): Buffer => createHmac('sha256', secret).update(data).digest();

const verify = (headers: VerifyInput['headers'], overrides: Partial<VerifyInput> = {}) =>
  verifyDelivery({ secrets: [SECRET], body: BODY, headers, now: NOW, toleranceSeconds: 300, ...overrides });

describe('verifying a delivery', () => {
  const hex = mac(SECRET, BODY).toString('hex');
  const base64 = mac(SECRET, BODY).toString('base64');

  it('accepts the signature in hex or base64, with or without a prefix, in either header', () => {
    for (const value of [
      hex,
      hex.toUpperCase(),
      `sha256=${hex}`,
      base64,
      `sha256=${base64}`,
      `v1=${base64}`,
      `v1,${base64}`,
      base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    ]) {
      expect(verify({ 'x-service-signature': value }), value).toEqual({ ok: true, timestamp: null, id: null });
    }
    expect(verify({ 'webhook-signature': `v1,${base64}` })).toEqual({ ok: true, timestamp: null, id: null });
  });

  it('accepts any of several signatures, and any of several secrets (a secret being rotated)', () => {
    const other = mac('an old secret', BODY).toString('hex');
    expect(verify({ 'x-service-signature': `sha256=${other} sha256=${hex}` }).ok).toBe(true);
    expect(verify({ 'x-service-signature': `${other},${hex}` }).ok).toBe(true);
    expect(verify({ 'x-service-signature': other }, { secrets: ['an old secret', SECRET] }).ok).toBe(true);
    expect(verify({ 'x-service-signature': other }).ok).toBe(false);
  });

  it('refuses a missing, empty, malformed or wrong signature, and a body changed by one byte', () => {
    expect(verify({})).toEqual({ ok: false, reason: 'no signature header' });
    expect(verify({ 'x-service-signature': '  ' })).toEqual({ ok: false, reason: 'no signature header' });
    expect(verify({ 'x-service-signature': 'sha256=zzzz' })).toEqual({ ok: false, reason: 'no signature in the header' });
    expect(verify({ 'x-service-signature': hex.slice(0, 62) })).toEqual({ ok: false, reason: 'no signature in the header' });
    expect(verify({ 'x-service-signature': mac('wrong', BODY).toString('hex') })).toEqual({ ok: false, reason: 'signature does not match' });
    const changed = Buffer.from(BODY);
    changed[changed.length - 2] = 0x38;
    expect(verify({ 'x-service-signature': hex }, { body: changed })).toEqual({ ok: false, reason: 'signature does not match' });
    // The raw bytes are what is signed: the same JSON written with other spacing does not verify.
    const reformatted = Buffer.from(JSON.stringify(JSON.parse(BODY.toString()), null, 1));
    expect(verify({ 'x-service-signature': hex }, { body: reformatted }).ok).toBe(false);
  });

  it('reads a timestamp from t= or a header, checks it signed as t.body, and refuses one out of the tolerance', () => {
    const t = Math.floor(NOW.getTime() / 1000) - 10;
    const stamped = mac(SECRET, Buffer.concat([Buffer.from(`${t}.`), BODY])).toString('hex');
    expect(verify({ 'x-service-signature': `t=${t},v1=${stamped}` })).toEqual({ ok: true, timestamp: new Date(t * 1000), id: null });
    expect(verify({ 'x-service-signature': stamped, 'x-service-timestamp': String(t) }).ok).toBe(true);
    // Standard Webhooks: id.timestamp.body, base64, secret given as whsec_<base64>.
    const key = Buffer.from('a standard webhooks key of 32 by');
    const standard = mac(key, Buffer.concat([Buffer.from(`msg_1.${t}.`), BODY])).toString('base64');
    expect(
      verify(
        { 'webhook-signature': `v1,${standard}`, 'webhook-id': 'msg_1', 'webhook-timestamp': String(t) },
        { secrets: [`whsec_${key.toString('base64')}`] },
      ),
    ).toEqual({ ok: true, timestamp: new Date(t * 1000), id: 'msg_1' });

    const old = t - 400;
    const oldSig = mac(SECRET, Buffer.concat([Buffer.from(`${old}.`), BODY])).toString('hex');
    expect(verify({ 'x-service-signature': `t=${old},v1=${oldSig}` })).toEqual({ ok: false, reason: 'timestamp too old' });
    const ahead = t + 400;
    const aheadSig = mac(SECRET, Buffer.concat([Buffer.from(`${ahead}.`), BODY])).toString('hex');
    expect(verify({ 'x-service-signature': `t=${ahead},v1=${aheadSig}` })).toEqual({ ok: false, reason: 'timestamp in the future' });
    // A timestamp that was not part of what was signed changes nothing to the signature check.
    expect(verify({ 'x-service-signature': stamped.replace(/^./, stamped[0] === 'a' ? 'b' : 'a'), 'x-service-timestamp': String(t) }).ok).toBe(false);
  });

  it('trusts a time or an id header only when the signature covers it: a replayed body cannot be made fresh or new', () => {
    const bodyOnly = mac(SECRET, BODY).toString('hex');
    // Anyone may add "now" or a new id beside a captured body signed alone: neither is taken.
    expect(verify({ 'x-service-signature': bodyOnly, 'x-service-timestamp': String(Math.floor(NOW.getTime() / 1000)), 'x-service-delivery': 'new-1' })).toEqual(
      {
        ok: true,
        timestamp: null,
        id: null,
      },
    );
    // Nor is an old one held against it: the payload's own time is checked instead, by the receiver.
    expect(verify({ 'x-service-signature': bodyOnly, 'x-service-timestamp': '1000000000' }).ok).toBe(true);
    const t = Math.floor(NOW.getTime() / 1000);
    const timeOnly = mac(SECRET, Buffer.concat([Buffer.from(`${t}.`), BODY])).toString('hex');
    expect(verify({ 'x-service-signature': timeOnly, 'x-service-timestamp': String(t), 'webhook-id': 'msg_9' })).toEqual({
      ok: true,
      timestamp: new Date(t * 1000),
      id: null,
    });
  });

  it('parses the forms of a signature header and of a timestamp', () => {
    const digest = 'a'.repeat(64);
    expect(parseSignatureHeader(`t=12345,v1=${digest},v0=${digest}`)).toEqual({
      signatures: [Buffer.from(digest, 'hex'), Buffer.from(digest, 'hex')],
      time: '12345',
    });
    expect(parseTimestamp('1762236000')).toEqual(new Date(1762236000 * 1000));
    expect(parseTimestamp(1762236000123)).toEqual(new Date(1762236000123));
    expect(parseTimestamp('2026-11-04T06:00:00+01:00')).toEqual(new Date('2026-11-04T05:00:00Z'));
    expect(parseTimestamp('yesterday')).toBeNull();
  });
});

describe('reading a delivery', () => {
  const read = (payload: unknown, headers: Record<string, string> = {}) => readEvent({ payload, body: Buffer.from(JSON.stringify(payload)), headers });

  it('reads the simulator form: id, kind, project, the one score named beside previous and current', () => {
    const event = read({
      id: 'evt_000007',
      event: 'score.change',
      created_at: '2026-11-04T06:00:00.000Z',
      data: { project_id: 12, score: 'geo_score', previous: 61, current: 48 },
    });
    expect(event).toMatchObject({
      id: 'evt_000007',
      kind: 'score.change',
      projectId: 12,
      scores: { geo: { before: 61, after: 48 }, seo: { before: null, after: null } },
    });
    expect(event.timestamp).toEqual(new Date('2026-11-04T06:00:00.000Z'));
  });

  it('reads other shapes: nested project, {old,new}, {from,to}, {before,after}, numeric strings, flat names', () => {
    expect(
      read({ type: 'SCORE_CHANGED', payload: { project: { id: '31' }, scores: { geo: { old: '70', new: '55.5' }, seo: { from: 60, to: 58 } } } }),
    ).toMatchObject({
      kind: 'score.change',
      projectId: 31,
      scores: { geo: { before: 70, after: 55.5 }, seo: { before: 60, after: 58 } },
    });
    expect(read({ kind: 'scoreChange', data: { projectId: 4, geo_score: { before: 50, after: 40 } } }).scores.geo).toEqual({ before: 50, after: 40 });
    expect(read({ event: 'score.change', data: { project_id: 4, previous_geo_score: 50, geo_score: 44 } }).scores.geo).toEqual({ before: 50, after: 44 });
    expect(read({ event: 'scan.completed', data: { project_id: 4, geo_score: 71.4, seo_score: 64 } }).scores).toEqual({
      geo: { before: null, after: 71.4 },
      seo: { before: null, after: 64 },
    });
  });

  it('never takes the kind from a header (none is signed); the id from a signed header, else the hash of the body', () => {
    const event = read({ data: { project_id: 9 } }, { 'x-service-event': 'scan.failed', 'x-event-type': 'score.change' });
    expect(event.kind).toBe('unknown');
    expect(event.kindText).toBeNull();
    expect(event.id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(read({ event: 'test' }, { 'webhook-id': 'msg_42' }).id).toBe('msg_42');
  });

  it('takes a change amount for a difference, never for the score after; and the time of sending from the top level only', () => {
    const event = read({ event: 'score.change', project_id: 3, changes: { geo_score: -3, seo_score: { from: 60, to: 52 } } });
    expect(event.scores).toEqual({ geo: { before: null, after: null }, seo: { before: 60, after: 52 } });
    expect(read({ event: 'score.change', delta: { geo: 4 } }).scores.geo).toEqual({ before: null, after: null });
    // The time a scan started, inside the data, is not when the delivery was sent.
    expect(read({ event: 'scan.completed', data: { created_at: '2026-11-01T00:00:00Z' } }).timestamp).toBeNull();
    expect(read({ event: 'scan.completed', created_at: '2026-11-04T06:00:00Z' }).timestamp).toEqual(new Date('2026-11-04T06:00:00Z'));
  });

  it('keeps control characters out of an id, which goes into log lines', () => {
    expect(read({ id: 'evt_1\nstored delivery forged', event: 'test' }).id).toBe('evt_1 stored delivery forged');
  });

  it('names an unknown kind without failing, and never takes a name for a kind', () => {
    expect(read({ event: 'invoice.paid' })).toMatchObject({ kind: 'unknown', kindText: 'invoice.paid' });
    expect(read({ name: 'My webhook', data: { type: 'scan.completed' } }).kind).toBe('scan.completed');
    expect(read('just a string')).toMatchObject({ kind: 'unknown', projectId: null });
    expect(read([1, 2, 3]).kind).toBe('unknown');
  });

  it('follows listen.fields for paths nobody guessed', () => {
    const payload = { meta: { what: 'score.change', ref: 'abc' }, target: { pid: 77 }, m: { g: [62, 49] } };
    const event = readEvent({
      payload,
      body: Buffer.from(JSON.stringify(payload)),
      headers: {},
      fields: { kind: 'meta.what', id: 'meta.ref', projectId: 'target.pid', 'geo.before': 'm.g.0', 'geo.after': 'm.g.1' },
    });
    expect(event).toMatchObject({ id: 'abc', kind: 'score.change', projectId: 77, scores: { geo: { before: 62, after: 49 } } });
  });

  it('knows the kinds by many spellings', () => {
    expect(['scan.completed', 'SCAN_COMPLETED', 'scanCompleted', 'scan-complete'].map(eventKind)).toEqual(Array(4).fill('scan.completed'));
    expect(['ping', 'webhook.test', 'test'].map(eventKind)).toEqual(['test', 'test', 'test']);
  });
});
