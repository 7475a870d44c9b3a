// Display rules shared by the templates and the chart: how a number, a change or a rank reads on paper,
// and which model strings are safe to place where the browser would fetch or style with them.
import type { Delta, Language } from '../report/model.js';
import { digitsFor, formatNumber } from '../i18n/format.js';

/** Shown where the model holds no value. */
export const NO_VALUE = '—';

export const DELTA_ARROWS: Record<Delta['direction'], string> = { up: '▲', down: '▼', flat: '▶' };

/** A 0–100 score as a whole number ("73"), or the no-value dash. */
export function formatScore(value: number | null, language: Language): string {
  return value === null ? NO_VALUE : formatNumber(value, language, { maximumFractionDigits: 0 });
}

/**
 * A signed number with its arrow: "▲ +3", "▼ -2.5", "▶ 0". The arrow follows the sign, never colour alone; a small
 * non-zero value gets the digits it needs ("▼ -0.04"), never a "0" that says nothing is needed.
 */
export function formatSigned(value: number | null, language: Language, digits = 1): string {
  if (value === null) return NO_VALUE;
  const needed = digitsFor(value, digits);
  const text = formatNumber(value, language, { maximumFractionDigits: needed, signDisplay: 'exceptZero' });
  return `${signedArrow(value, needed)} ${text}`;
}

/** The arrow of a signed number as written with `digits` fraction digits (at least as many as it needs). */
export function signedArrow(value: number, digits = 1): string {
  const shown = Number(value.toFixed(digitsFor(value, digits)));
  const direction: Delta['direction'] = shown > 0 ? 'up' : shown < 0 ? 'down' : 'flat';
  return DELTA_ARROWS[direction];
}

/** A change against last period, arrow taken from the model's own direction. */
export function formatDelta(delta: Delta | null, language: Language, digits = 1): string {
  if (delta === null) return NO_VALUE;
  const text = formatNumber(delta.value, language, { maximumFractionDigits: digits, signDisplay: 'exceptZero' });
  return `${DELTA_ARROWS[delta.direction]} ${text}`;
}

/** 42 → "42%" / "42 %". */
export function formatPercent(value: number | null, language: Language, digits = 0): string {
  if (value === null) return NO_VALUE;
  return formatNumber(value / 100, language, { style: 'percent', maximumFractionDigits: digits });
}

/**
 * Which sentence describes a percentile (share of tracked sites this client scores above):
 * 80 → top 20%; under the median the sentence says how many sites it is ahead of instead.
 */
export function percentileBand(percentile: number): { key: 'percentile.top' | 'percentile.ahead'; share: number } {
  const clamped = Math.min(100, Math.max(0, percentile));
  if (clamped >= 50) return { key: 'percentile.top', share: Math.max(1, Math.round(100 - clamped)) };
  return { key: 'percentile.ahead', share: Math.round(clamped) };
}

/** Width of a 0–100 bar, in percent, kept inside its track. */
export function barWidth(value: number | null): number {
  if (value === null || !Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, Math.round(value * 10) / 10));
}

const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const FUNCTION_COLOR = /^(?:rgb|rgba|hsl|hsla)\(\s*[\d.%\s,/]+\)$/i;
const NAMED_COLOR = /^[a-z]{3,20}$/i;

/** A branding colour goes inside CSS: anything but a plain colour could inject rules or fetch a URL. */
export function safeColor(color: string, fallback: string): string {
  const trimmed = color.trim();
  return HEX_COLOR.test(trimmed) || FUNCTION_COLOR.test(trimmed) || NAMED_COLOR.test(trimmed) ? trimmed : fallback;
}

/** A font stack made of names only (letters, digits, spaces, hyphens, quotes, commas). */
export function safeFontFamily(fontFamily: string, fallback: string): string {
  const trimmed = fontFamily.trim();
  return /^[\w\s,'"-]{1,200}$/.test(trimmed) ? trimmed : fallback;
}

/** Only an inline raster or SVG image may become an <img src>: a URL would make the report fetch. */
export function safeImageDataUri(uri: string | undefined): string | null {
  if (uri === undefined) return null;
  return /^data:image\/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/=]+$/.test(uri) ? uri : null;
}

/** Index links stay inside the period folder: relative, no scheme, no climbing out. */
export function safeRelativeHref(href: string | null): string | null {
  if (href === null || href.length === 0) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('\\')) return null;
  if (href.split(/[\\/]/).some((part) => part === '..')) return null;
  return href;
}

function relativeLuminance(color: string): number | null {
  const hex = color.trim().replace(/^#/, '');
  const full = hex.length === 3 || hex.length === 4 ? hex.slice(0, 3).replace(/./g, (c) => c + c) : hex.slice(0, 6);
  if (!/^[0-9a-f]{6}$/i.test(full) || !color.trim().startsWith('#')) return null;
  const channel = (offset: number): number => {
    const c = parseInt(full.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** WCAG contrast ratio of two hex colours, null when either is not hex. */
export function contrastRatio(a: string, b: string): number | null {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  if (la === null || lb === null) return null;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** Keeps a brand colour used for text only if it stays readable on `background` (WCAG AA by default). */
export function ensureContrast(color: string, background: string, fallback: string, minRatio = 4.5): string {
  const ratio = contrastRatio(color, background);
  return ratio === null || ratio >= minRatio ? color : fallback;
}

/** Black or white text, whichever reads better on a hex background. */
export function readableTextOn(background: string): '#ffffff' | '#111827' {
  const onWhite = contrastRatio('#ffffff', background);
  const onInk = contrastRatio('#111827', background);
  if (onWhite === null || onInk === null) return '#ffffff';
  return onWhite >= onInk ? '#ffffff' : '#111827';
}
