/**
 * Geometry on WGS 84 points, at the scale of a district (issue 14): the distance between two points
 * (haversine), whether a point lies in a GeoJSON polygon, and the box of degrees around a point that a
 * database index can search before the exact distance is computed. Pure functions, no I/O.
 */
import { z } from './zod.js';

/** A point in degrees: latitude (north), longitude (east). */
export interface Coordonnees {
  lat: number;
  lon: number;
}

/** The Earth's mean radius in metres (IUGG), the haversine's sphere. */
export const RAYON_TERRE_M = 6_371_008.8;

const radians = (degres: number) => (degres * Math.PI) / 180;

/**
 * The great-circle distance between two points, in metres (haversine). Over a few kilometres its error
 * against the ellipsoid stays under 0.5 %: 50 m measure between 49.8 and 50.2 m.
 */
export function distanceM(a: Coordonnees, b: Coordonnees): number {
  const dLat = radians(b.lat - a.lat);
  const dLon = radians(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.lat)) * Math.cos(radians(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * RAYON_TERRE_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A box of degrees: what a database searches on its (lat, lon) index. */
export interface Boite {
  latMin: number;
  latMax: number;
  lonMin: number;
  lonMax: number;
}

/**
 * The box that holds every point within `rayonM` metres of `centre` (slightly larger, never smaller):
 * the candidates of a nearby search, whose exact distance is then computed with distanceM.
 */
export function boiteAutour(centre: Coordonnees, rayonM: number): Boite {
  // 0.1 % more than the radius, so that rounding never leaves a point at exactly the radius outside.
  const dLat = ((rayonM * 1.001) / RAYON_TERRE_M) * (180 / Math.PI);
  const cosLat = Math.max(Math.cos(radians(Math.min(89, Math.abs(centre.lat) + dLat))), 1e-6);
  const dLon = dLat / cosLat;
  return { latMin: centre.lat - dLat, latMax: centre.lat + dLat, lonMin: centre.lon - dLon, lonMax: centre.lon + dLon };
}

/** A GeoJSON position: longitude first, then latitude (RFC 7946 § 3.1.1). */
export type Position = readonly [number, number];

const positionSchema = z.tuple([
  z.number({ error: 'Une longitude est un nombre.' }).min(-180).max(180),
  z.number({ error: 'Une latitude est un nombre.' }).min(-90).max(90),
]);

/** A closed ring: at least four positions, the last equal to the first (RFC 7946 § 3.1.6). */
const anneauSchema = z
  .array(positionSchema)
  .min(4, { error: 'Un contour compte au moins quatre positions.' })
  .refine((ring) => ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1], { error: 'Un contour se termine par sa première position.' });

/** A GeoJSON Polygon: its outer ring, then any holes. */
export const polygoneSchema = z.object({
  type: z.literal('Polygon'),
  coordinates: z.array(anneauSchema).min(1, { error: 'Un polygone a au moins un contour.' }),
});
export type Polygone = z.infer<typeof polygoneSchema>;

/** Whether a point is inside a ring (ray casting; a point exactly on an edge may fall either side). */
function dansAnneau(point: Coordonnees, ring: readonly Position[]): boolean {
  let dedans = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > point.lat !== yj > point.lat && point.lon < ((xj - xi) * (point.lat - yi)) / (yj - yi) + xi) dedans = !dedans;
  }
  return dedans;
}

/** Whether a point is inside a polygon: in its outer ring and in none of its holes. */
export function dansPolygone(point: Coordonnees, polygone: Pick<Polygone, 'coordinates'>): boolean {
  const [exterieur, ...trous] = polygone.coordinates;
  if (!exterieur || !dansAnneau(point, exterieur)) return false;
  return !trous.some((trou) => dansAnneau(point, trou));
}

/** The box around a polygon's outer ring (to draw it, or to spread test points over it). */
export function boiteDuPolygone(polygone: Pick<Polygone, 'coordinates'>): Boite {
  const ring = polygone.coordinates[0] ?? [];
  const lats = ring.map((p) => p[1]);
  const lons = ring.map((p) => p[0]);
  return { latMin: Math.min(...lats), latMax: Math.max(...lats), lonMin: Math.min(...lons), lonMax: Math.max(...lons) };
}

/** The point `distance` metres from `depart` towards `capDegres` (0 north, 90 east), on the sphere. */
export function pointA(depart: Coordonnees, distance: number, capDegres: number): Coordonnees {
  const d = distance / RAYON_TERRE_M;
  const cap = radians(capDegres);
  const lat1 = radians(depart.lat);
  const lon1 = radians(depart.lon);
  const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(cap));
  const lon2 = lon1 + Math.atan2(Math.sin(cap) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
  return { lat: (lat2 * 180) / Math.PI, lon: (lon2 * 180) / Math.PI };
}
