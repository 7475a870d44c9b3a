// `geo-reports webhooks`: list, create (the signing secret is shown once) and test webhooks.
import { WEBHOOK_EVENTS, type Webhook, type WebhookCreated } from '../api/schemas.js';
import { API_OPTIONS, API_OPTIONS_HELP, parseCommandArgs, positiveInt, stringValue, UsageError } from './args.js';
import { commaList, formatText, refuseFlags, withClient } from './api-command.js';
import { printResult, table, type Command } from './context.js';

const OPTIONS = {
  ...API_OPTIONS,
  name: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
} as const;

const CREATE_FLAGS = ['name', 'url', 'events'] as const;

const HELP = `Usage: geo-reports webhooks list
       geo-reports webhooks create --name NAME --url URL --events E1,E2
       geo-reports webhooks test <webhook-id>

Manages the webhooks the service notifies of scan and score events.

Subcommands:
  list                 list the webhooks
  create               create a webhook; its signing secret is printed ONCE: store it in your secret store,
                       it verifies the X-Service-Signature header (HMAC-SHA256) of every delivery
  test <webhook-id>    ask the service for a test delivery (exit 1 when the receiver did not accept it)

Options of create:
  --name NAME          label of the webhook
  --url URL            http(s) address the service posts the events to
  --events LIST        events to receive: ${WEBHOOK_EVENTS.join(', ')}
${API_OPTIONS_HELP}
`;

function webhooksTable(webhooks: Webhook[]): string {
  // `active` is not in the spec: the column shows only when the API sends it.
  const withActive = webhooks.some((w) => w['active'] !== undefined);
  return table(
    ['ID', 'Name', 'URL', 'Events', ...(withActive ? ['Active'] : [])],
    webhooks.map((w) => [w.id, w.name, w.url, w.events.join(', '), ...(withActive ? [formatText(w['active'])] : [])]),
  );
}

function checkUrl(value: string | undefined): string {
  if (value === undefined) throw new UsageError('webhooks create: --url is required.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url must be an absolute http(s) address (got "${value}").`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must use http or https (got ${url.protocol}).`);
  return value;
}

/** The created webhook, and its secret once, with the warning that goes with it. */
function createdText(webhook: WebhookCreated): string {
  const { secret, ...shown } = webhook;
  const lines = [webhooksTable([shown]), ''];
  if (secret === undefined) {
    lines.push('The API returned no signing secret for this webhook.');
  } else {
    lines.push(
      'Signing secret (shown only this once: store it now in your secret store; it verifies X-Service-Signature):',
      `  ${secret}`,
    );
  }
  return lines.join('\n');
}

export const webhooksCommand: Command = {
  name: 'webhooks',
  usage: 'webhooks list | create … | test <id>',
  summary: 'list, create and test webhooks',
  async run(argv, ctx) {
    const args = parseCommandArgs(argv, { options: OPTIONS, positionals: 2, help: HELP, command: 'webhooks' }, ctx.stdout);
    if (args === null) return 0;
    const { values, positionals } = args;
    const json = values['json'] === true;
    const [action, target] = positionals;

    switch (action) {
      case 'list': {
        if (target !== undefined) throw new UsageError(`webhooks list: unexpected argument "${target}".`);
        refuseFlags(values, CREATE_FLAGS, 'with webhooks list');
        const webhooks = await withClient(values, ctx, (client) => client.listWebhooks());
        printResult(ctx, json, webhooks, () => webhooksTable(webhooks));
        return 0;
      }
      case 'create': {
        if (target !== undefined) throw new UsageError(`webhooks create: unexpected argument "${target}".`);
        const name = stringValue(values['name'])?.trim();
        if (name === undefined || name === '') throw new UsageError('webhooks create: --name is required.');
        const url = checkUrl(stringValue(values['url']));
        const events = commaList(values['events'], WEBHOOK_EVENTS, '--events');
        if (events === undefined) throw new UsageError(`webhooks create: --events is required (${WEBHOOK_EVENTS.join(', ')}).`);
        const webhook = await withClient(values, ctx, (client) => client.createWebhook({ name, url, events }));
        printResult(ctx, json, webhook, () => createdText(webhook));
        if (json && webhook.secret !== undefined) {
          ctx.stderr.write('The JSON above holds the signing secret, shown only this once: store it now in your secret store.\n');
        }
        return 0;
      }
      case 'test': {
        if (target === undefined) throw new UsageError('webhooks test: missing <webhook-id>.', { hint: 'List the ids with `geo-reports webhooks list`.' });
        const webhookId = positiveInt(target, 'webhook-id');
        refuseFlags(values, CREATE_FLAGS, 'with webhooks test');
        const result = await withClient(values, ctx, (client) => client.testWebhook(webhookId));
        printResult(ctx, json, result, () =>
          table(['Webhook', 'Delivered', 'Receiver status'], [[webhookId, result.delivered === undefined ? null : result.delivered ? 'yes' : 'no', result.status_code]]),
        );
        if (result.delivered !== false) return 0;
        ctx.stderr.write(
          `Error: the test delivery of webhook ${webhookId} was not accepted by its receiver${result.status_code == null ? ' (no answer)' : ` (HTTP ${result.status_code})`}.\n` +
            'Fix: check that the URL is reachable from the service and answers 2xx to a signed POST.\n',
        );
        return 1;
      }
      case undefined:
        throw new UsageError('webhooks: missing subcommand (list, create or test).', { hint: 'Run `geo-reports webhooks --help`.' });
      default:
        throw new UsageError(`webhooks: unknown subcommand "${action}" (expected list, create or test).`, { hint: 'Run `geo-reports webhooks --help`.' });
    }
  },
};
