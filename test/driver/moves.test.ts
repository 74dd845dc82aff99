import { describe, expect, it } from 'vitest';
import { rewriteOrigin } from '../../app/driver/moves.js';

describe('rewriteOrigin', () => {
  it('keeps the path and the signature, replaces scheme, host and port', () => {
    const url = 'http://n8n-main:5678/webhook-waiting/123?signature=abc';
    expect(rewriteOrigin(url, 'http://127.0.0.1:15678')).toBe(
      'http://127.0.0.1:15678/webhook-waiting/123?signature=abc',
    );
    expect(rewriteOrigin(url, undefined)).toBe(url);
  });
});
