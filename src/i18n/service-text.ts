// The service's own text (a recommendation's title or description) as the agency's translations are matched on it:
// the same words whatever spaces the service put around or between them.

/** The service's text as the files are matched on: its spaces trimmed and runs of white space made one. */
export function serviceText(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}
