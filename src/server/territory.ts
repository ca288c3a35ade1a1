import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from '../domain/zod.js';

/** The project root, from this file's place in src/server or dist/server. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const territorySchema = z.object({
  ville: z.string(),
  codeInsee: z.string(),
  codesPostaux: z.array(z.string()).min(1),
  quartier: z.string(),
  sources: z.array(z.object({ title: z.string(), url: z.string(), consulted: z.string(), note: z.string().optional() })).min(1),
  rues: z.array(z.object({ nom: z.string(), codePostal: z.string() })).min(1),
});
export type Territory = z.infer<typeof territorySchema>;

/** Reads `data/territory/aix-en-provence.json` (the street list and the public sources it comes from). */
export function loadTerritory(file = new URL('data/territory/aix-en-provence.json', `file://${PROJECT_ROOT}`)): Territory {
  return territorySchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}
