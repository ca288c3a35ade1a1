import { z } from './zod.js';

/**
 * The map's settings (GET /app/api/carte), read by the map pages of technical reports: where the tiles come
 * from (a Leaflet URL template: {z}, {x}, {y}, and {s} for subdomains) and the attribution their licence asks for.
 */
export const carteSchema = z.object({
  tuilesUrl: z.string(),
  attribution: z.string(),
});
export type Carte = z.infer<typeof carteSchema>;
