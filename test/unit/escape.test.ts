import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/render/escape.js';

describe('escapeHtml', () => {
  it('leaves no character that opens a tag, an entity or ends a double-quoted attribute', () => {
    const text = `"><script>alert('x')</script> & &amp;`;
    const escaped = escapeHtml(text);
    expect(escaped).toBe(`&quot;&gt;&lt;script&gt;alert('x')&lt;/script&gt; &amp; &amp;amp;`);
    expect(escaped).not.toMatch(/[<>"]|&(?!amp;|lt;|gt;|quot;)/);
  });
});
