// The chat channel of alerts: a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, a Teams workflow).
import { request, type Dispatcher } from 'undici';
import { outgoingText } from '../outgoing-text.js';
import type { AlertChannel } from './alert-channel.js';

export interface ChatChannelOptions {
  /** The incoming-webhook URL (Slack, Mattermost, Rocket.Chat, a Teams workflow): it carries a secret. */
  url: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

/**
 * An alert's words as a chat shows them and nothing more: cleaned (controls, bidi overrides); `&`, `<` and `>`
 * escaped as Slack's format asks, so `<!channel>` or `<https://…|Open the report>` from a project's name is shown, not
 * run; an "@" before a name, a Markdown link's "](" and a URL's "://" held apart by a word joiner, so Mattermost and
 * Teams neither mention anyone nor make a link. Mentions and links come from us alone (and we write none).
 */
export function chatText(words: string): string {
  return outgoingText(words)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=[\p{L}\p{N}_])/gu, '@\u2060')
    .replace(/\]\(/g, ']\u2060(')
    .replace(/:\/\//g, ':\u2060//');
}

/** Slack-compatible `{"text": …}` to an incoming webhook; the URL is never printed, only its host. */
export function createChatChannel(options: ChatChannelOptions): AlertChannel {
  const url = new URL(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    name: 'chat',
    label: `chat webhook on ${url.host}`,
    async deliver(message) {
      const body = JSON.stringify({ text: `*${chatText(message.subject)}*\n${chatText(message.text)}` });
      try {
        const response = await request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        });
        const answer = (await response.body.text()).slice(0, 200);
        if (response.statusCode >= 200 && response.statusCode < 300) return { kind: 'sent', response: `${response.statusCode} ${answer}`.trim() };
        const temporary = response.statusCode === 429 || response.statusCode >= 500;
        return { kind: 'failed', reason: `the chat webhook answered ${response.statusCode}`, temporary };
      } catch (error) {
        const code = (error as { code?: string }).code;
        // Refused or not found: nothing reached the chat. Anything later may have posted the message.
        if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
          return { kind: 'failed', reason: `the chat webhook could not be reached (${code})`, temporary: true };
        }
        return { kind: 'unknown', reason: `the chat webhook did not answer (${code ?? (error as Error).message})` };
      }
    },
    close: async () => undefined,
  };
}
