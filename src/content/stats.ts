// The account's statistics as the reports use them (read by competitors.ts from stats.php), declared with zod so
// that the template reference lists them; in a module of its own, so that reading them never loads zod.
import { z } from 'zod';

export const StatsContentSchema = z.object({
  projects: z.number().nullable().describe('Projects in the account.'),
  scans: z.number().nullable().describe('Scans in the account.'),
  averageScore: z.number().nullable().describe('Average GEO score of the account.'),
  topProjects: z.array(z.object({ projectId: z.number().nullable(), name: z.string().nullable(), geo: z.number().nullable() })),
  evolution: z.array(z.object({ month: z.string(), value: z.number().nullable() })).describe('Average score month by month.'),
});
export type StatsContent = z.infer<typeof StatsContentSchema>;
