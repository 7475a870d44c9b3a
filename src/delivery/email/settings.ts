// The email settings, checked in one place before anything is done: the sender (delivery.email.from in the config)
// and, for anything but a dry run, the SMTP server (GEO_REPORTS_SMTP_URL). Every problem is a ConfigError: exit 2.
import { SMTP_URL_ENV } from '../../config/environment.js';
import type { Config } from '../../config/schema.js';
import { ConfigError } from '../../errors.js';
import type { DeliveryMode } from '../summary.js';
import { parseSmtpUrl, type SmtpSettings } from './smtp-url.js';

export interface EmailSettings {
  /** "reports@agency.example" or "Agency <reports@agency.example>". */
  from: string;
  /** Null in a dry run, which connects to nothing. */
  smtp: SmtpSettings | null;
}

export function checkEmailSettings(config: Config, env: NodeJS.ProcessEnv, options: { mode: DeliveryMode; allowInsecure: boolean }): EmailSettings {
  const from = emailSender(config);
  return { from, smtp: options.mode === 'dry-run' ? null : parseSmtpUrl(env[SMTP_URL_ENV], { allowInsecure: options.allowInsecure }) };
}

/** delivery.email.from: without it the messages have no sender. */
export function emailSender(config: Config): string {
  const from = config.delivery.email.from;
  if (from === undefined) {
    throw new ConfigError('delivery.email.from is not set: the messages have no sender.', {
      hint: 'Add "delivery": { "email": { "from": "Your Agency <reports@your-agency.example>" } } to the config file.',
    });
  }
  return from;
}
