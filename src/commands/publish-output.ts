// What `publish` prints: on a terminal, one line per client whose page changed, every address that changed and a
// summary; otherwise (CI, logs) or with --json, one JSON line per event, every file written or removed included.
import { formatBytes } from '../output/disk.js';
import type { PublishEvent, PublishSummary } from '../site/publish.js';
import type { CommandContext } from './context.js';

export function createPublishOutput(ctx: CommandContext, json: boolean): (event: PublishEvent) => void {
  if (json || ctx.stdout.isTTY !== true) {
    return (event) => {
      ctx.stdout.write(`${JSON.stringify({ time: ctx.clock().toISOString(), ...event })}\n`);
    };
  }
  let dryRun = false;
  return (event) => {
    if (event.type === 'publish-plan') dryRun = event.dryRun;
    if (event.type === 'warning') {
      ctx.stderr.write(`Warning: ${event.message}\n`);
      return;
    }
    const line = describePublishEvent(event, dryRun);
    if (line !== null) ctx.stdout.write(`${line}\n`);
  };
}

export function describePublishEvent(event: PublishEvent, dryRun: boolean): string | null {
  const wrote = dryRun ? 'would write' : 'wrote';
  const removed = dryRun ? 'would remove' : 'removed';
  switch (event.type) {
    case 'publish-plan':
      return `Publishing ${event.clients} client page${event.clients === 1 ? '' : 's'} from ${event.periods.length === 0 ? 'no period' : event.periods.join(', ')} into ${event.siteDir}${event.dryRun ? ' (dry run: nothing is written)' : ''}.`;
    case 'site-written':
      // A client's files are told by its own line; the site's own files here.
      return event.path.includes('/') ? null : `  site: ${wrote} ${event.path}`;
    case 'site-removed':
      return event.path.split('/').length === 2 ? `  site: ${removed} ${event.path}/ (${event.files} file${event.files === 1 ? '' : 's'})` : null;
    case 'client-published': {
      const parts = [
        ...(event.written.length > 0 ? [`${wrote} ${event.written.join(', ')}`] : []),
        ...(event.removed.length > 0 ? [`${removed} ${event.removed.join(', ')}`] : []),
      ];
      return `  ${event.id} ${event.name}: ${parts.join('; ')}`;
    }
    case 'url-changed':
      return `  ${event.id} ${event.name}: new address ${event.to}\n      (the old one, ${event.from}, ${dryRun ? 'would be' : 'is'} gone)`;
    case 'warning':
      return `Warning: ${event.message}`;
    case 'publish-summary':
      return describePublishSummary(event.summary);
  }
}

export function describePublishSummary(s: PublishSummary): string {
  const files = (count: number): string => `${count} file${count === 1 ? '' : 's'}`;
  const head =
    s.written === 0 && s.removed === 0
      ? `The site is up to date: nothing ${s.dryRun ? 'would be' : 'was'} written.`
      : `${files(s.written)} ${s.dryRun ? 'would be written' : 'written'} (${formatBytes(s.bytesWritten)})${s.removed > 0 ? `, ${files(s.removed)} ${s.dryRun ? 'would be removed' : 'removed'}` : ''}.`;
  const lines = [`${head} ${s.clients} client${s.clients === 1 ? ' has a page' : 's have a page'}; ${(s.durationMs / 1000).toFixed(1)} s.`];
  if (s.urlsChanged.length > 0)
    lines.push(`${s.urlsChanged.length} address${s.urlsChanged.length === 1 ? '' : 'es'} changed (above): give the clients their new link.`);
  if (s.stopped) lines.push('Stopped before every client was done: publish again to finish (what was written works).');
  return lines.join('\n');
}
