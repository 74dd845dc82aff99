/** GET /api/events: the state, the Check run, its lines and the tutor's runs as server-sent events. */
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { ConsoleDeps } from './deps.js';

/**
 * GET /api/events: what the page draws, as server-sent events: the state (`state`, each new version), the
 * Check control's run (`check-run`) and each line the checker prints (`check-line`), as they come, and,
 * with a tutor, the explained runs (`runs`, each new version). An open stream is what keeps the state feed
 * and the tutor polling.
 */
export function eventRoutes({ feed, checks, tutor }: Pick<ConsoleDeps, 'feed' | 'checks' | 'tutor'>): Hono {
  return new Hono().get('/', (c) =>
    streamSSE(c, async (stream) => {
      let sent = -1;
      const send = async () => {
        const view = feed.view;
        if (view.version === sent) return;
        sent = view.version;
        await stream.writeSSE({ event: 'state', id: String(view.version), data: JSON.stringify(view) });
      };
      let runsSent = -1;
      const sendRuns = async () => {
        if (!tutor) return;
        const view = tutor.view;
        if (view.version === runsSent) return;
        runsSent = view.version;
        await stream.writeSSE({ event: 'runs', data: JSON.stringify(view) });
      };
      const unsubscribe = feed.subscribe(() => void send());
      const unfollow = checks?.subscribe((event) => {
        const data = JSON.stringify(event.kind === 'run' ? event.view : { n: event.n, text: event.text });
        void stream.writeSSE({ event: `check-${event.kind}`, data });
      });
      const unwatch = tutor?.subscribe(() => void sendRuns());
      const heartbeat = setInterval(() => void stream.write(': keep-alive\n\n'), 15_000);
      const end = () => {
        unsubscribe();
        unfollow?.();
        unwatch?.();
        clearInterval(heartbeat);
      };
      stream.onAbort(end);
      await send();
      if (checks) await stream.writeSSE({ event: 'check-run', data: JSON.stringify(checks.view) });
      await sendRuns();
      while (!stream.aborted && !stream.closed) await stream.sleep(60_000);
      end();
    }),
  );
}
