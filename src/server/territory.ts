import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dansPolygone, polygoneSchema } from '../domain/geometrie.js';
import { z } from '../domain/zod.js';

/** The project root, from this file's place in src/server or dist/server. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const territorySchema = z
  .object({
    ville: z.string(),
    codeInsee: z.string(),
    codesPostaux: z.array(z.string()).min(1),
    quartier: z.string(),
    /** The district's centre (Wikipédia's coordinates), where the map opens. */
    centre: z.object({ lat: z.number().min(-90).max(90), lon: z.number().min(-180).max(180) }),
    /**
     * The district's boundary, a GeoJSON Polygon (longitude, latitude): technical reports outside it are refused
     * (features/signalements). `perimetreApproximatif`: traced by hand from the boundary roads, not the town
     * hall's official perimeter (its source note says so; docs/produit.md « Signalements techniques »).
     */
    perimetre: polygoneSchema,
    perimetreApproximatif: z.boolean(),
    sources: z.array(z.object({ title: z.string(), url: z.string(), consulted: z.string(), note: z.string().optional() })).min(1),
    rues: z.array(z.object({ nom: z.string(), codePostal: z.string() })).min(1),
  })
  .refine((t) => dansPolygone(t.centre, t.perimetre), { error: 'Le centre du quartier doit être dans son périmètre.', path: ['centre'] });
export type Territory = z.infer<typeof territorySchema>;

/** Reads `data/territory/aix-en-provence.json` (the street list, the boundary and the public sources they come from). */
export function loadTerritory(file = new URL('data/territory/aix-en-provence.json', `file://${PROJECT_ROOT}`)): Territory {
  return territorySchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}
