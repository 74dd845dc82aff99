/** The Case lookup stage: the case is looked up after enrichment. */
import { casePath, type Expectation, fail, gap, pass, requestCount, requests, show, WORDS } from './kit.js';

export function caseLookupAfterEnrich(): Expectation {
  return {
    stage: 'case-lookup',
    text: WORDS.requires['case-lookup'].afterEnrich.text,
    judge: (e) => {
      const path = casePath(e.facts);
      const lookups = requests(e.state, 'GET', path);
      const firstIdentity = requests(e.state, 'GET', (p) => p.startsWith('/identity/'))[0];
      if (lookups.length === 0) {
        const other = requests(e.state, 'GET', (p) => p.startsWith('/cases/'));
        return other.length > 0
          ? fail(
              `Case lookup asked ${other.map(show).join(', ')}, not GET ${path}: look the case up by the alert's event_id`,
              gap(`GET ${path}`, requestCount(1), `0 (asked ${other.map(show).join(', ')})`),
            )
          : fail(
              `no GET ${path}: connect Case lookup after Enrich and ask GET {mock API}/cases/ + the alert's event_id (a 404 there is an answer, not an error: turn on "never error" / full response)`,
              gap(`GET ${path}`, requestCount(1), 0),
            );
      }
      if (firstIdentity !== undefined && (lookups[0]?.seq ?? 0) < firstIdentity.seq) {
        return fail(
          'Case lookup ran before Enrich: the exercise’s order is Enrich, then Case lookup',
          gap(`GET ${path}`, `after ${firstIdentity.method} ${firstIdentity.path}`, 'before it'),
        );
      }
      return pass();
    },
  };
}
