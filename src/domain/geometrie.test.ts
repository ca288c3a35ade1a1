import { describe, expect, it } from 'vitest';
import { boiteAutour, boiteDuPolygone, dansPolygone, distanceM, pointA, polygoneSchema, type Polygone } from './geometrie.js';

const CENTRE = { lat: 43.529444, lon: 5.413889 };

describe('distanceM (haversine)', () => {
  it('measures known distances', () => {
    expect(distanceM(CENTRE, CENTRE)).toBe(0);
    // One degree of latitude on the mean sphere: 111.195 km.
    expect(distanceM({ lat: 43, lon: 5 }, { lat: 44, lon: 5 })).toBeCloseTo(111_195, -1);
    // Paris (Notre-Dame) to Marseille (Vieux-Port): 660.44 km on the sphere, as the spherical law of cosines gives it.
    expect(distanceM({ lat: 48.853, lon: 2.3499 }, { lat: 43.2951, lon: 5.3744 }) / 1000).toBeCloseTo(660.441, 3);
    // Symmetric.
    const a = { lat: 43.52, lon: 5.41 };
    const b = { lat: 43.53, lon: 5.42 };
    expect(distanceM(a, b)).toBeCloseTo(distanceM(b, a), 9);
  });

  it('agrees with pointA at the scale of a street', () => {
    for (const cap of [0, 45, 90, 135, 180, 270, 333]) {
      for (const metres of [1, 40, 50, 60, 500]) expect(distanceM(CENTRE, pointA(CENTRE, metres, cap))).toBeCloseTo(metres, 6);
    }
    // North is latitude up, east is longitude up.
    expect(pointA(CENTRE, 100, 0).lat).toBeGreaterThan(CENTRE.lat);
    expect(pointA(CENTRE, 100, 90).lon).toBeGreaterThan(CENTRE.lon);
  });
});

describe('boiteAutour', () => {
  it('holds every point of the circle, and not much more', () => {
    const boite = boiteAutour(CENTRE, 50);
    for (let cap = 0; cap < 360; cap += 7.5) {
      const p = pointA(CENTRE, 50, cap);
      expect(p.lat >= boite.latMin && p.lat <= boite.latMax && p.lon >= boite.lonMin && p.lon <= boite.lonMax, `cap ${cap}`).toBe(true);
    }
    // The box's half-height is the radius (within 0.1 %), its half-width too once the latitude is counted.
    expect(distanceM(CENTRE, { lat: boite.latMax, lon: CENTRE.lon })).toBeCloseTo(50.05, 1);
    expect(distanceM(CENTRE, { lat: CENTRE.lat, lon: boite.lonMax })).toBeLessThan(50.2);
    expect(distanceM(CENTRE, { lat: CENTRE.lat, lon: boite.lonMax })).toBeGreaterThanOrEqual(50);
  });
});

describe('dansPolygone', () => {
  const carre: Polygone = {
    type: 'Polygon',
    coordinates: [
      [
        [5, 43],
        [6, 43],
        [6, 44],
        [5, 44],
        [5, 43],
      ],
      [
        [5.4, 43.4],
        [5.6, 43.4],
        [5.6, 43.6],
        [5.4, 43.6],
        [5.4, 43.4],
      ],
    ],
  };

  it('says inside for a point of the outer ring, outside in a hole or beyond', () => {
    expect(dansPolygone({ lat: 43.2, lon: 5.2 }, carre)).toBe(true);
    expect(dansPolygone({ lat: 43.9, lon: 5.9 }, carre)).toBe(true);
    expect(dansPolygone({ lat: 43.5, lon: 5.5 }, carre)).toBe(false);
    expect(dansPolygone({ lat: 42.9, lon: 5.5 }, carre)).toBe(false);
    expect(dansPolygone({ lat: 43.5, lon: 6.1 }, carre)).toBe(false);
    // Longitude and latitude are not swapped (GeoJSON: [lon, lat]).
    expect(dansPolygone({ lat: 5.5, lon: 43.5 }, carre)).toBe(false);
  });

  it('follows a concave outline', () => {
    // A « U »: the notch between its arms is outside.
    const u: Polygone = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [3, 0],
          [3, 3],
          [2, 3],
          [2, 1],
          [1, 1],
          [1, 3],
          [0, 3],
          [0, 0],
        ],
      ],
    };
    expect(dansPolygone({ lon: 0.5, lat: 2.5 }, u)).toBe(true);
    expect(dansPolygone({ lon: 2.5, lat: 2.5 }, u)).toBe(true);
    expect(dansPolygone({ lon: 1.5, lat: 2 }, u)).toBe(false);
    expect(dansPolygone({ lon: 1.5, lat: 0.5 }, u)).toBe(true);
    expect(boiteDuPolygone(u)).toEqual({ latMin: 0, latMax: 3, lonMin: 0, lonMax: 3 });
    // A « V » notch with slanted sides: at height 2 the notch runs from 1.333 to 2.667.
    const chevron: Polygone = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 0],
          [4, 0],
          [4, 4],
          [2, 1],
          [0, 4],
          [0, 0],
        ],
      ],
    };
    expect(dansPolygone({ lon: 1.2, lat: 2 }, chevron)).toBe(true);
    expect(dansPolygone({ lon: 1.5, lat: 2 }, chevron)).toBe(false);
    expect(dansPolygone({ lon: 2.5, lat: 2 }, chevron)).toBe(false);
    expect(dansPolygone({ lon: 2.8, lat: 2 }, chevron)).toBe(true);
  });
});

describe('polygoneSchema', () => {
  it('accepts a closed GeoJSON polygon and refuses an open or too short ring', () => {
    const ring = [
      [5, 43],
      [6, 43],
      [6, 44],
      [5, 43],
    ];
    expect(polygoneSchema.safeParse({ type: 'Polygon', coordinates: [ring] }).success).toBe(true);
    expect(polygoneSchema.safeParse({ type: 'Polygon', coordinates: [ring.slice(0, 3)] }).success).toBe(false);
    expect(polygoneSchema.safeParse({ type: 'Polygon', coordinates: [[...ring.slice(0, 3), [5, 43.5]]] }).success).toBe(false);
    expect(polygoneSchema.safeParse({ type: 'Polygon', coordinates: [[[200, 43], ...ring.slice(1)]] }).success).toBe(false);
    expect(polygoneSchema.safeParse({ type: 'MultiPolygon', coordinates: [ring] }).success).toBe(false);
  });
});
