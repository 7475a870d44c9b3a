// The listener as a command runs it: secrets and channels from the environment, the rest from the config, the
// API read only when a score change carries no scores. Shared by `listen` and `schedule --listen`.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CommandContext } from '../command-context.js';
import { setupApi } from '../config/api-client.js';
import { readScoresAnswer } from '../content/lists.js';
import { ALERT_WEBHOOK_URL_ENV, SMTP_URL_ENV, TOKEN_ENV } from '../config/environment.js';
import { shortWebhookSecretWarning, webhookSecrets } from '../config/webhook-secret.js';
import { isLoopbackHost, loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createRedactor, parseSmtpUrl } from '../delivery/email/smtp-url.js';
import { createSmtpTransport } from '../delivery/email/transport.js';
import { ConfigError, GeoReportsError, StopRequested } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { loadLocales } from '../i18n/locales.js';
import { alertMessage } from './alert-message.js';
import { createChatChannel, type AlertChannel } from './alerts.js';
import { createEmailAlertChannel } from './email-alert.js';
import { startListener, type Listener } from './listener.js';
import { withoutControls } from './payload.js';
import type { KnownScores } from './store.js';

export interface ListenFlags {
  host: string;
  port: number;
  path: string;
  out?: string | undefined;
  config?: string | undefined;
  'base-url'?: string | undefined;
  'allow-insecure'?: boolean;
}

function chatChannel(ctx: CommandContext, allowInsecure: boolean): AlertChannel | null {
  const value = ctx.env[ALERT_WEBHOOK_URL_ENV]?.trim();
  if (value === undefined || value === '') return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${ALERT_WEBHOOK_URL_ENV} is not a URL.`, { hint: 'Set it to the incoming-webhook URL your chat gave (https://…).' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${ALERT_WEBHOOK_URL_ENV} must be an http(s) URL (got ${url.protocol}//).`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !allowInsecure) {
    throw new ConfigError(`${ALERT_WEBHOOK_URL_ENV} is plain http:// to ${url.host}: the URL is a secret and would cross the network in clear.`, {
      hint: 'Use the https:// URL, or give --allow-insecure.',
    });
  }
  return createChatChannel({ url: value });
}

function emailChannel(config: Config, ctx: CommandContext, allowInsecure: boolean): { channel: AlertChannel; password: string | null } | null {
  if (config.alerts.email.to.length === 0) return null;
  const from = config.delivery.email.from;
  if (from === undefined) {
    throw new ConfigError('alerts.email.to is set but delivery.email.from is not: alert mails need a sender.', {
      hint: 'Set delivery.email.from in the config, e.g. "Northwind Digital <reports@northwind.example>".',
    });
  }
  if (ctx.env[SMTP_URL_ENV] === undefined) {
    throw new ConfigError(`alerts.email.to is set but ${SMTP_URL_ENV} is not: there is no SMTP server to send alerts through.`, {
      hint: `Set ${SMTP_URL_ENV}=smtp://user:password@smtp.example.com:587, or remove alerts.email.to.`,
    });
  }
  const settings = parseSmtpUrl(ctx.env[SMTP_URL_ENV], { allowInsecure });
  const transport = createSmtpTransport(settings, { messageTimeoutMs: config.delivery.email.messageTimeoutMs, maxConnections: 1 });
  return {
    channel: createEmailAlertChannel({
      from,
      agencyName: config.agency.name,
      to: config.alerts.email.to,
      transport,
      serverLabel: settings.display,
      clock: ctx.clock,
    }),
    password: settings.password,
  };
}

/** A score change without scores: the project's latest scores, one request, only with a token; else null. */
function latestScoresReader(
  flags: ListenFlags,
  ctx: CommandContext,
  log: (line: string) => void,
): ((projectId: number) => Promise<KnownScores | null>) | undefined {
  if ((ctx.env[TOKEN_ENV] ?? '').trim() === '') return undefined;
  return async (projectId) => {
    try {
      const { client, config } = await setupApi(flags, ctx);
      try {
        const answer = readScoresAnswer(await client.getProjectScores({ projectId, last: true }), config.api.fields);
        return answer.latest === null ? null : { geo: answer.latest.geo, seo: answer.latest.seo };
      } finally {
        await client.close();
      }
    } catch (error) {
      log(`the latest scores of project ${projectId} could not be read: ${(error as Error).message}`);
      return null;
    }
  };
}

/** Opens the journal, the channels and the server; the first line written is the URL. */
export async function openListener(flags: ListenFlags, ctx: CommandContext, log: (line: string) => void): Promise<Listener> {
  const secrets = webhookSecrets(ctx.env);
  // On stderr: the first line of stdout is the URL, for whoever started the listener.
  const short = shortWebhookSecretWarning(ctx.env);
  if (short !== null) ctx.stderr.write(`Warning: ${short}\n`);
  const { config } = await loadConfig({ ...(flags.config !== undefined ? { path: flags.config } : {}), cwd: ctx.cwd });
  const allowInsecure = flags['allow-insecure'] === true;
  const chat = chatChannel(ctx, allowInsecure);
  const email = emailChannel(config, ctx, allowInsecure);
  const channels = [email?.channel, chat].filter((c): c is AlertChannel => c !== null && c !== undefined);
  const outDir = resolve(ctx.cwd, flags.out ?? config.output.dir);
  const dir = join(outDir, 'events');
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new ConfigError(`Cannot create the events folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`, {
      hint: 'Give an output folder the listener can write to with --out (or output.dir in the config).',
    });
  }
  const language = config.report.language;
  const phrases = loadLocales({ languages: [language] }).phrases(language);
  const redact = createRedactor([...secrets, email?.password, ctx.env[ALERT_WEBHOOK_URL_ENV]]);
  const latestScores = latestScoresReader(flags, ctx, log);
  try {
    return await startListener({
      dir,
      host: flags.host,
      port: flags.port,
      path: flags.path,
      secrets,
      toleranceSeconds: config.listen.toleranceSeconds,
      fields: config.listen.fields,
      policy: { minDrop: config.alerts.minDrop, cooldownMinutes: config.alerts.cooldownMinutes },
      channels,
      message: (alert) => alertMessage(alert, { config, outDir, phrases, language }),
      ...(latestScores === undefined ? {} : { latestScores }),
      clock: ctx.clock,
      redact,
      log: (line) => log(redact(line)),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new ConfigError(`Cannot listen on ${flags.host}:${flags.port} (${code}).`, {
        hint: code === 'EADDRINUSE' ? 'Another process uses that port: stop it, or choose another with --port.' : 'Choose another --host or a port above 1023.',
      });
    }
    throw error instanceof GeoReportsError ? error : new GeoReportsError(`The listener could not start: ${(error as Error).message}`, { cause: error });
  }
}

export async function runListener(flags: ListenFlags, ctx: CommandContext): Promise<number> {
  // The URL is the first line: what the start finishes before listening is printed after it.
  let early: string[] | null = [];
  const log = (line: string): void => {
    // One event, one line: no text a sender wrote can break a line or colour the terminal.
    const text = `${ctx.clock().toISOString()} ${withoutControls(line)}\n`;
    if (early === null) ctx.stdout.write(text);
    else early.push(text);
  };
  const listener = await openListener(flags, ctx, log);
  ctx.stdout.write(`${listener.url}\n`);
  for (const text of early) ctx.stdout.write(text);
  early = null;
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) done();
    else ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  log('stopping: finishing the deliveries in flight');
  await listener.close();
  log('stopped');
  const reason: unknown = ctx.signal.reason;
  return reason instanceof StopRequested && reason.signal === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
}
