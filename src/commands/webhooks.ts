// `geo-reports webhooks`: list, create (the signing secret is shown once) and test webhooks.
import type { Webhook, WebhookCreated } from '../api/schemas.js';
import { WEBHOOK_EVENTS } from '../spec/vocabulary.js';
import { EXIT } from '../exit-codes.js';
import {
  defineCommand,
  formatText,
  listOf,
  nonBlank,
  positiveInteger,
  printResult,
  refuseFlags,
  subcommandOf,
  table,
  UsageError,
  type ValueParser,
} from './define.js';
import { API_OPTIONS, withClient } from './shared.js';

const ACTIONS = ['list', 'create', 'test'] as const;
const CREATE_FLAGS = ['name', 'url', 'events'] as const;

/** An absolute http(s) address. */
const webhookUrl: ValueParser<string> = (text, name) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${name} must be an absolute http(s) address (got "${text}").`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${name} must use http or https (got ${url.protocol}).`);
  return text;
};

function webhooksTable(webhooks: Webhook[]): string {
  // `active` is not in the spec: the column shows only when the API sends it.
  const withActive = webhooks.some((w) => w['active'] !== undefined);
  return table(
    ['ID', 'Name', 'URL', 'Events', ...(withActive ? ['Active'] : [])],
    webhooks.map((w) => [w.id, w.name, w.url, w.events.join(', '), ...(withActive ? [formatText(w['active'])] : [])]),
  );
}

/** The created webhook, and its secret once, with the warning that goes with it. */
function createdText(webhook: WebhookCreated): string {
  const { secret, ...shown } = webhook;
  const lines = [webhooksTable([shown]), ''];
  if (secret === undefined) {
    lines.push('The API returned no signing secret for this webhook.');
  } else {
    lines.push('Signing secret (shown only this once: store it now in your secret store; it verifies X-Service-Signature):', `  ${secret}`);
  }
  return lines.join('\n');
}

export default defineCommand(
  {
    name: 'webhooks',
    usage: ['list', 'create --name NAME --url URL --events E1,E2', 'test <webhook-id>'],
    description: `Manages the webhooks the service notifies of scan and score events.

Subcommands:
  list                 list the webhooks
  create               create a webhook; its signing secret is printed ONCE: store it in your secret store,
                       it verifies the X-Service-Signature header (HMAC-SHA256) of every delivery
  test <webhook-id>    ask the service for a test delivery (exit ${EXIT.failure} when the receiver did not accept it)`,
    args: {
      subcommand: { help: ACTIONS.join(', '), parse: subcommandOf('webhooks', ACTIONS) },
      'webhook-id': { help: 'with test: the webhook to test' },
    },
    options: {
      name: { type: 'string', value: 'NAME', parse: nonBlank, help: 'with create: label of the webhook' },
      url: { type: 'string', value: 'URL', parse: webhookUrl, help: 'with create: http(s) address the service posts the events to' },
      events: { type: 'string', value: 'LIST', parse: listOf(WEBHOOK_EVENTS), help: `with create: events to receive: ${WEBHOOK_EVENTS.join(', ')}` },
      ...API_OPTIONS,
    },
  },
  async ({ options, args, given }, ctx) => {
    const { json } = options;
    const { subcommand, 'webhook-id': target } = args;
    if (subcommand === undefined) {
      throw new UsageError('webhooks: missing subcommand (list, create or test).', { hint: 'Run `geo-reports webhooks --help`.' });
    }
    if (subcommand !== 'test' && target !== undefined) throw new UsageError(`webhooks ${subcommand}: unexpected argument "${target}".`);
    if (subcommand !== 'create') refuseFlags(given, CREATE_FLAGS, `with webhooks ${subcommand}`);

    switch (subcommand) {
      case 'list': {
        const webhooks = await withClient(options, ctx, (client) => client.listWebhooks());
        printResult(ctx, json, webhooks, () => webhooksTable(webhooks));
        return EXIT.ok;
      }
      case 'create': {
        const { name, url, events } = options;
        if (name === undefined) throw new UsageError('webhooks create: --name is required.');
        if (url === undefined) throw new UsageError('webhooks create: --url is required.');
        if (events === undefined) throw new UsageError(`webhooks create: --events is required (${WEBHOOK_EVENTS.join(', ')}).`);
        const webhook = await withClient(options, ctx, (client) => client.createWebhook({ name, url, events }));
        printResult(ctx, json, webhook, () => createdText(webhook));
        if (json && webhook.secret !== undefined) {
          ctx.stderr.write('The JSON above holds the signing secret, shown only this once: store it now in your secret store.\n');
        }
        return EXIT.ok;
      }
      case 'test': {
        if (target === undefined) throw new UsageError('webhooks test: missing <webhook-id>.', { hint: 'List the ids with `geo-reports webhooks list`.' });
        const webhookId = positiveInteger(target, 'webhook-id');
        const result = await withClient(options, ctx, (client) => client.testWebhook(webhookId));
        printResult(ctx, json, result, () =>
          table(
            ['Webhook', 'Delivered', 'Receiver status'],
            [[webhookId, result.delivered === undefined ? null : result.delivered ? 'yes' : 'no', result.status_code]],
          ),
        );
        if (result.delivered !== false) return EXIT.ok;
        ctx.stderr.write(
          `Error: the test delivery of webhook ${webhookId} was not accepted by its receiver${result.status_code == null ? ' (no answer)' : ` (HTTP ${result.status_code})`}.\n` +
            'Fix: check that the URL is reachable from the service and answers 2xx to a signed POST.\n',
        );
        return EXIT.failure;
      }
    }
  },
);
