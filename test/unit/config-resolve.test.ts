// The API base URL and the remote browser endpoint, chosen from flags, environment and a parsed config (no file).
import { describe, expect, it } from 'vitest';
import { resolveBaseUrl, resolveBrowserEndpoint } from '../../src/config/load.js';
import { ConfigSchema } from '../../src/config/schema.js';
import { ConfigError } from '../../src/errors.js';

describe('resolveBaseUrl', () => {
  it('takes the first value given, trimmed of trailing slashes', () => {
    expect(resolveBaseUrl([undefined, 'https://app.example.com/', 'https://other.example'], { allowInsecure: false })).toBe('https://app.example.com');
  });

  it('allows http only on loopback unless insecure transport is allowed', () => {
    expect(resolveBaseUrl(['http://127.0.0.1:8787'], { allowInsecure: false })).toBe('http://127.0.0.1:8787');
    expect(resolveBaseUrl(['http://localhost:1'], { allowInsecure: false })).toBe('http://localhost:1');
    expect(() => resolveBaseUrl(['http://api.example.com'], { allowInsecure: false })).toThrow(/Refusing plain http/);
    expect(resolveBaseUrl(['http://api.example.com'], { allowInsecure: true })).toBe('http://api.example.com');
  });

  it('refuses no URL, a non-URL, another scheme and credentials in the URL', () => {
    expect(() => resolveBaseUrl([undefined, ''], { allowInsecure: false })).toThrow(/No API base URL/);
    expect(() => resolveBaseUrl(['not a url'], { allowInsecure: false })).toThrow(/is not a URL/);
    expect(() => resolveBaseUrl(['ftp://x.example'], { allowInsecure: false })).toThrow(/https/);
    expect(() => resolveBaseUrl(['https://user:pw@x.example'], { allowInsecure: false })).toThrow(/credentials/);
  });
});

describe('the remote browser endpoint', () => {
  const endpoint = 'ws://127.0.0.1:9222/devtools/browser/0d4c2a5e-1b7f-4a51-9f7e-3c2d1e0f9a8b';

  it('takes the flag, then GEO_REPORTS_BROWSER_WS_ENDPOINT, then the config; a bad value is named by its source only', async () => {
    const config = ConfigSchema.parse({ render: { browserWSEndpoint: endpoint } });
    const pool = 'wss://pool.example/chrome?token=s3cret';
    expect(resolveBrowserEndpoint('ws://flag:1/devtools/browser/x', pool, config)).toBe('ws://flag:1/devtools/browser/x');
    expect(resolveBrowserEndpoint(undefined, pool, config)).toBe(pool);
    expect(resolveBrowserEndpoint(undefined, ' ', config)).toBe(endpoint);
    expect(resolveBrowserEndpoint(undefined, undefined, ConfigSchema.parse({}))).toBeUndefined();
    expect(() => resolveBrowserEndpoint('127.0.0.1:9222', undefined, config)).toThrow(ConfigError);
    expect(() => resolveBrowserEndpoint('127.0.0.1:9222', undefined, config)).toThrow(/^--browser-ws-endpoint is not a browser endpoint/);
    const bad = 'https://pool.example/chrome?token=s3cret';
    expect(() => resolveBrowserEndpoint(undefined, bad, config)).toThrow(/^GEO_REPORTS_BROWSER_WS_ENDPOINT is not a browser endpoint: must start with ws:\/\//);
    expect(() => resolveBrowserEndpoint(undefined, bad, config)).not.toThrow(/s3cret/);
  });
});
