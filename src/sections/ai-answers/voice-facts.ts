// The share of voice's figures as facts of the report's table: what the export, the summary and the goals read.
// Per assistant `sov.<assistant>`, `mentionRate.<assistant>`, `position.<assistant>`, every assistant together
// without the suffix; each change since last month's scan as `<key>.change` (the export puts it in its change column).
import type { SectionFact } from '../unit.js';
import type { VoiceView } from './voice-view.js';

export function voiceFacts(voice: VoiceView): SectionFact[] {
  const facts: SectionFact[] = [];
  for (const row of [...voice.rows, voice.overall]) {
    const suffix = row === voice.overall ? '' : `.${row.assistant}`;
    facts.push(
      { key: `sov${suffix}`, value: row.shareOfVoice, unit: 'percent' },
      { key: `sov${suffix}.change`, value: row.shareOfVoiceChange, unit: 'percent' },
      { key: `mentionRate${suffix}`, value: row.mentionRate, unit: 'percent' },
      { key: `mentionRate${suffix}.change`, value: row.mentionRateChange, unit: 'percent' },
      { key: `position${suffix}`, value: row.averagePosition, unit: 'position', direction: 'lower' },
      { key: `position${suffix}.change`, value: row.averagePositionChange, unit: 'position', direction: 'lower' },
    );
  }
  for (const kind of voice.sources.kinds)
    for (const item of kind.items) facts.push({ key: `sources.${kind.kind}.${item.domain}`, value: item.answers, unit: 'count' });
  return facts;
}
