import type { CorpsErreur } from './erreurs.js';
import { z } from './zod.js';

/** The schema of every error answer (docs/api.md): what each route declares for its 4xx and 5xx. */
export const corpsErreurSchema: z.ZodType<CorpsErreur> = z.object({
  error: z.object({ code: z.string(), message: z.string(), fields: z.record(z.string(), z.string()).optional() }),
});
