/** The approval-request rule the checker, the runner and the console share (app/judging/approval-request.ts). */
import { describe, expect, it } from 'vitest';
import { approvalRequestOf, resumeUrlIn } from '../../app/judging/approval-request.js';

describe('an approval request is any notification carrying the resume URL', () => {
  const url = 'http://n8n:5678/webhook-waiting/417?signature=9f2c';

  it('finds it under any field name, or inside a sentence', () => {
    expect(resumeUrlIn({ resume_url: url })).toBe(url);
    expect(resumeUrlIn({ links: [{ approve: url }] })).toBe(url);
    expect(resumeUrlIn({ text: `Approve here: ${url} (10 min).` })).toBe(url);
  });

  it("takes n8n's $execution.resumeUrl as it is, without the sentence's closing punctuation", () => {
    const signed = 'http://127.0.0.1:5678/webhook-waiting/88?signature=4e1d';
    expect(resumeUrlIn({ message: `Approve: ${signed}.` })).toBe(signed);
    expect(resumeUrlIn({ message: `(approve at ${signed})` })).toBe(signed);
    expect(resumeUrlIn({ message: `${signed}, within 2 minutes` })).toBe(signed);
  });

  it('is not fooled by a trigger URL or a bare path', () => {
    expect(resumeUrlIn({ url: 'http://n8n:5678/webhook/suspicious-login' })).toBeUndefined();
    expect(resumeUrlIn({ path: '/webhook-waiting/417' })).toBeUndefined();
    expect(resumeUrlIn({ channel: 'approval' })).toBeUndefined();
  });
});

describe('approvalRequestOf: what the console shows of a request', () => {
  const url = 'http://127.0.0.1:5678/webhook-waiting/9?signature=ab';

  it('reads subject, message and a top-level string event_id; defaults the subject', () => {
    expect(approvalRequestOf({ subject: 'Block?', message: 'm', event_id: 'evt-1', link: url })).toEqual({
      resume_url: url,
      subject: 'Block?',
      message: 'm',
      event_id: 'evt-1',
    });
    expect(approvalRequestOf({ subject: ' ', message: url, details: { event_id: 'evt-2' } })).toEqual({
      resume_url: url,
      subject: 'Approval requested',
      message: url,
      event_id: null,
    });
  });

  it('is null for a notification without a resume URL, whatever its channel', () => {
    expect(
      approvalRequestOf({ channel: 'approval', message: 'approve?', resume_url: '/webhook-waiting/9' }),
    ).toBeNull();
  });
});
