// The API client's validators, called directly: each returns the value it checked.
import { describe, expect, it } from 'vitest';
import { checkEnumList, checkHttpUrl, checkId, checkLimit } from '../../src/api/validate.js';

describe('validators', () => {
  it('return the checked value', () => {
    expect(checkId('id', 7)).toBe(7);
    expect(checkLimit('limit', 1)).toBe(1);
    expect(checkHttpUrl('url', 'http://127.0.0.1:9000/hook')).toBe('http://127.0.0.1:9000/hook');
    expect(checkEnumList('events', ['scan.failed', 'scan.completed'], ['scan.completed', 'scan.failed'])).toEqual(['scan.failed', 'scan.completed']);
  });
});
