// Fixed vocabularies the seeded generator draws from: business names, recommendations, questions, platforms.
import type { Category, Priority } from '../api/schemas.js';

export const AI_ASSISTANTS = ['chatgpt', 'perplexity', 'gemini', 'claude', 'copilot'] as const;

export const FRENCH_TRADES = [
  'Boulangerie',
  'Atelier',
  'Cabinet',
  'Garage',
  'Pharmacie',
  'Fromagerie',
  'Librairie',
  'Menuiserie',
  'Fleuriste',
  'Domaine',
] as const;
export const FRENCH_SURNAMES = [
  'Martin',
  'Dubois',
  'Lefèvre',
  'Moreau',
  'Girard',
  'Rousseau',
  'Fontaine',
  'Chevalier',
  'Mercier',
  'Lambert',
  'Bonnet',
  'Garnier',
] as const;
export const ENGLISH_PREFIXES = [
  'Nordic',
  'Harbor',
  'Summit',
  'Bright Path',
  'Blue Ridge',
  'Evergreen',
  'Copper Kettle',
  'Silver Lake',
  'Redwood',
  'Northwind',
  'Cedar & Stone',
  'Lighthouse',
] as const;
export const ENGLISH_TRADES = [
  'Outdoor Gear',
  'Dental Care',
  'Legal Partners',
  'Tutoring',
  'Coffee Roasters',
  'Home Services',
  'Physiotherapy',
  'Bike Shop',
  'Realty',
  'Veterinary Clinic',
  'Software',
  'Pet Supplies',
] as const;

/** Where the hostile markup points; a remote address no renderer may ever fetch. */
export const DEFAULT_HOSTILE_REMOTE_URL = 'http://198.51.100.7/x.png';

/** Overlaid on the first active projects when hostile names are asked for. */
export function hostileNames(remoteUrl: string): string[] {
  return [
    '../../etc/passwd Bakery',
    'Smith / Jones Plumbing',
    'Null\u0000Byte Studio',
    '<script>alert("geo")</script> Café',
    `<img src="${remoteUrl}"> Optics`,
    `Very Long Name ${'Consulting Services International '.repeat(9)}`.slice(0, 300),
    '東京ラーメン 株式会社',
    'Пекарня Иванов и сыновья',
  ];
}

export function hostileTitleFragments(remoteUrl: string): string[] {
  return ['<script>alert(1)</script>', `<img src="${remoteUrl}">`, '../../../', 'NUL\u0000here'];
}

export interface RecommendationTemplate {
  title: string;
  description: string;
  priority: Priority;
  category: Category;
  impact: 'high' | 'medium' | 'low';
  effort: 'high' | 'medium' | 'low';
}

export const RECOMMENDATION_CATALOG: readonly RecommendationTemplate[] = [
  {
    title: 'Add Organization structured data',
    description: 'Mark up the home page with schema.org Organization so assistants can identify the business.',
    priority: 'high',
    category: 'technical',
    impact: 'high',
    effort: 'low',
  },
  {
    title: 'Fix pages blocked by robots.txt',
    description: 'Key service pages are disallowed for crawlers; AI assistants cannot cite them.',
    priority: 'critical',
    category: 'technical',
    impact: 'high',
    effort: 'low',
  },
  {
    title: 'Publish an FAQ answering buyer questions',
    description: 'Assistants quote concise question-and-answer content; add an FAQ covering the top ten questions.',
    priority: 'high',
    category: 'content',
    impact: 'high',
    effort: 'medium',
  },
  {
    title: 'Improve Largest Contentful Paint on mobile',
    description: 'LCP is above 4 s on mobile; compress the hero image and preload the main font.',
    priority: 'medium',
    category: 'technical',
    impact: 'medium',
    effort: 'medium',
  },
  {
    title: 'Claim and complete the Google Business Profile',
    description: 'Opening hours, categories and photos are missing from the profile.',
    priority: 'high',
    category: 'seo',
    impact: 'high',
    effort: 'low',
  },
  {
    title: 'Get cited on industry comparison pages',
    description: 'Assistants rely on third-party comparisons where the brand is absent.',
    priority: 'medium',
    category: 'ai_visibility',
    impact: 'high',
    effort: 'high',
  },
  {
    title: 'Write author pages with credentials',
    description: 'Articles have no named author; add author bios to strengthen E-E-A-T.',
    priority: 'medium',
    category: 'content',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Add an llms.txt file',
    description: 'Summarise the site for language models with a short llms.txt at the root.',
    priority: 'low',
    category: 'ai_visibility',
    impact: 'low',
    effort: 'low',
  },
  {
    title: 'Repair broken internal links',
    description: 'Internal links point to pages answering 404.',
    priority: 'high',
    category: 'seo',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Answer price questions explicitly',
    description: 'Assistants answer price questions with competitor figures; publish a clear pricing page.',
    priority: 'critical',
    category: 'ai_visibility',
    impact: 'high',
    effort: 'medium',
  },
  {
    title: 'Consolidate duplicate title tags',
    description: 'Several pages share the same title tag, which dilutes rankings.',
    priority: 'medium',
    category: 'seo',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Serve images in modern formats',
    description: 'Convert JPEG and PNG images to WebP or AVIF to cut page weight.',
    priority: 'low',
    category: 'technical',
    impact: 'low',
    effort: 'low',
  },
  {
    title: 'Respond to recent customer reviews',
    description: 'Reviews from the last 90 days have no owner response.',
    priority: 'medium',
    category: 'content',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Create a comparison page against main competitors',
    description: 'Assistants answer "X vs Y" questions without the brand; a fair comparison page fills the gap.',
    priority: 'high',
    category: 'ai_visibility',
    impact: 'high',
    effort: 'medium',
  },
  {
    title: 'Add hreflang between language versions',
    description: 'French and English pages do not reference each other.',
    priority: 'low',
    category: 'seo',
    impact: 'low',
    effort: 'medium',
  },
  {
    title: 'Reduce unused JavaScript',
    description: 'Third-party scripts block rendering on every page.',
    priority: 'medium',
    category: 'technical',
    impact: 'medium',
    effort: 'high',
  },
  {
    title: 'Publish original statistics',
    description: 'Assistants cite sources with first-hand data; publish yearly figures from your own activity.',
    priority: 'medium',
    category: 'ai_visibility',
    impact: 'medium',
    effort: 'high',
  },
  {
    title: 'Expand thin service pages',
    description: 'Service pages have fewer than 200 words and no examples.',
    priority: 'high',
    category: 'content',
    impact: 'high',
    effort: 'medium',
  },
  {
    title: 'Fix canonical tags pointing to redirects',
    description: 'Canonical URLs redirect, so search engines ignore them.',
    priority: 'critical',
    category: 'seo',
    impact: 'high',
    effort: 'low',
  },
  {
    title: 'Add a visible contact address and phone number',
    description: 'Trust signals are weak: no postal address on the site.',
    priority: 'medium',
    category: 'content',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Earn links from local press',
    description: 'Referring domains are few and mostly directories.',
    priority: 'low',
    category: 'seo',
    impact: 'medium',
    effort: 'high',
  },
  {
    title: 'Enable HTTP/2 and compression',
    description: 'The server answers over HTTP/1.1 without Brotli or gzip.',
    priority: 'low',
    category: 'technical',
    impact: 'low',
    effort: 'low',
  },
  {
    title: 'Correct the brand description on Wikidata',
    description: 'Assistants repeat an outdated description of the company.',
    priority: 'critical',
    category: 'ai_visibility',
    impact: 'high',
    effort: 'low',
  },
  {
    title: 'Update outdated blog articles',
    description: 'The most visited articles are more than three years old.',
    priority: 'low',
    category: 'content',
    impact: 'low',
    effort: 'medium',
  },
  {
    title: 'Add product structured data with reviews',
    description: 'Product pages lack Product and AggregateRating markup.',
    priority: 'high',
    category: 'technical',
    impact: 'medium',
    effort: 'medium',
  },
  {
    title: 'Fix mobile layout shifts',
    description: 'Late-loading banners move content (CLS above 0.25).',
    priority: 'critical',
    category: 'technical',
    impact: 'medium',
    effort: 'medium',
  },
  {
    title: 'Target long-tail questions in headings',
    description: 'Headings use generic wording instead of the questions customers ask.',
    priority: 'medium',
    category: 'seo',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Get listed in assistant-favoured directories',
    description: 'Perplexity and Copilot cite directories where the business is missing.',
    priority: 'high',
    category: 'ai_visibility',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Write a clear About page',
    description: 'The About page does not say who runs the business, where, and since when.',
    priority: 'low',
    category: 'content',
    impact: 'medium',
    effort: 'low',
  },
  {
    title: 'Remove noindex from category pages',
    description: 'Category pages carry a noindex tag left from staging.',
    priority: 'critical',
    category: 'seo',
    impact: 'high',
    effort: 'low',
  },
];

export const QUESTION_PATTERNS = [
  'What is the best {trade} near {city}?',
  'Which {trade} do you recommend in {city}?',
  'Is {name} a good choice for {trade}?',
  'How much does a {trade} cost in {city}?',
  'What are alternatives to {name}?',
  'Who offers reliable {trade} services with good reviews?',
] as const;
export const CITIES = ['Lyon', 'Paris', 'Bordeaux', 'Nantes', 'Manchester', 'Bristol', 'Oslo', 'Denver', 'Montréal', 'Dublin'] as const;

export const REVIEW_PLATFORMS = [
  { name: 'Google Business Profile', host: 'https://www.google.com/maps/place/' },
  { name: 'Trustpilot', host: 'https://www.trustpilot.com/review/' },
  { name: 'Yelp', host: 'https://www.yelp.com/biz/' },
  { name: 'Facebook', host: 'https://www.facebook.com/' },
  { name: 'Tripadvisor', host: 'https://www.tripadvisor.com/' },
] as const;

export const SEO_STEP_NAMES = ['step1_lighthouse', 'step2_onpage', 'step3_serp', 'step4_keywords', 'step5_backlinks', 'step6_report'] as const;
export type SeoStepName = (typeof SEO_STEP_NAMES)[number];

export const COMPETITOR_DOMAINS = ['example-rival.com', 'best-local-choice.net', 'market-leader.org', 'cityguide.example', 'compare-pros.example'] as const;
