// `geo-reports listen`: the receiver of the API's signed webhooks; alerts the agency when a client's score drops.
import { ALERT_WEBHOOK_URL_ENV, SMTP_URL_ENV, WEBHOOK_SECRET_ENV } from '../config/environment.js';
import { defineCommand, integer, UsageError, type ValueParser } from './define.js';
import { API_OPTIONS, BATCH_OPTIONS } from './shared.js';

const webhookPath: ValueParser<string> = (value, flag) => {
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(value) || value.includes('//') || value.includes('/../')) {
    throw new UsageError(`${flag} must be a plain path starting with "/", e.g. /webhooks (got "${value}").`);
  }
  return value;
};

const LISTEN_OPTIONS = {
  host: { type: 'string', value: 'HOST', default: '127.0.0.1', help: 'address to listen on (loopback by default: put a TLS reverse proxy in front)' },
  port: { type: 'string', value: 'PORT', parse: integer({ min: 0, max: 65_535 }), default: 8788, help: 'port (0: a free one)' },
  path: { type: 'string', value: 'PATH', parse: webhookPath, default: '/webhooks', help: 'path the deliveries are posted to' },
} as const;

export default defineCommand(
  {
    name: 'listen',
    description: `Receives the deliveries of the API's webhooks (scan.completed, scan.failed, score.change) and
prints its URL (http://HOST:PORT/PATH) on its first line. Each delivery's HMAC-SHA256 signature
(X-Service-Signature) is checked with ${WEBHOOK_SECRET_ENV} (several, comma-separated, while a
secret is rotated); a verified delivery is written to <out>/events/<YYYY-MM>.jsonl and flushed
before the answer, and acted on once: a GEO or SEO drop of alerts.minDrop points or more, or a failed
scan, alerts the agency by email (alerts.email.to, through ${SMTP_URL_ENV}) and on a chat webhook
(${ALERT_WEBHOOK_URL_ENV}), once per project and kind per alerts.cooldownMinutes. Stop with Ctrl-C or
SIGTERM: deliveries in flight are finished first. See also: geo-reports events.`,
    options: {
      ...LISTEN_OPTIONS,
      out: BATCH_OPTIONS.out,
      config: API_OPTIONS.config,
      'base-url': API_OPTIONS['base-url'],
      'allow-insecure': { type: 'boolean', help: 'allow a plain http:// chat webhook or API base URL that is not loopback' },
    },
    stopsOnSignal: true,
  },
  async ({ options }, ctx) => {
    // What the work needs is loaded when it runs: the command's --help loads the declaration above alone.
    const { runListener } = await import('../events/listen.js');
    return runListener(options, ctx);
  },
);
