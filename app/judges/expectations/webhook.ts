/** The Webhook stage: the alert arrives, and all seven mapped fields reach the run. */
import { type Expectation, fail, gap, MAPPED_FIELDS, pass, unjudged, WORDS } from './kit.js';

const R = WORDS.requires.webhook;

/** The one expectation judged even when the alert never reached the workflow. */
export const webhookAccepts: Expectation = {
  stage: 'webhook',
  text: R.accepts.text,
  judge: (e) => {
    const { status, error } = e.marks.trigger;
    if (status !== null && status >= 200 && status < 300) return pass();
    return fail(
      `POST /webhook/${e.webhookPath} ${status === null ? `could not be sent (${error})` : `answered ${status}`}: ` +
        'give the Webhook node HTTP method POST and this path (or tell the checker yours with --webhook-path), and publish the workflow',
      gap(`POST /webhook/${e.webhookPath}`, 'a 2xx answer', status ?? `no answer (${error ?? 'not sent'})`),
    );
  },
};

export const sevenFields: Expectation = {
  stage: 'webhook',
  text: R.sevenFields.text,
  judge: (e) => {
    const found = e.execution;
    if (found === undefined) return unjudged('judged once the run has settled');
    switch (found.kind) {
      case 'no-key':
        return unjudged(
          'no n8n API key (N8N_API_KEY), so the execution data cannot be read: judged from the next stage ' +
            '(Validate needs all seven fields, so a field the Webhook loses fails there)',
        );
      case 'not-found':
      case 'error':
        return fail(
          'no execution of this alert was found through the n8n API: check that the workflow saves its executions (EXECUTIONS_DATA_SAVE_ON_SUCCESS=all) and is the one published at this path',
          gap(`an n8n execution of event ${e.facts.eventId}`, 'found', `none (${found.detail})`),
        );
      case 'found':
        return found.missing.length === 0
          ? pass()
          : fail(
              `execution ${found.executionId} does not show ${found.missing.join(', ')} with the values sent: map all seven fields (${MAPPED_FIELDS.join(', ')}) from the webhook body`,
              gap(
                `execution ${found.executionId} fields`,
                `all seven as sent`,
                `${found.missing.join(', ')} missing or changed`,
              ),
            );
    }
  },
};
