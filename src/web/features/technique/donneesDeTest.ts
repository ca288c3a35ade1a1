import type { Perimetre } from '../../../domain/signalements.js';

/** A square around the district's centre: inside it, 43.526 / 5.418; outside, the Cours Mirabeau. */
export const PERIMETRE: Perimetre = {
  perimetre: {
    type: 'Polygon',
    coordinates: [
      [
        [5.4, 43.515],
        [5.435, 43.515],
        [5.435, 43.54],
        [5.4, 43.54],
        [5.4, 43.515],
      ],
    ],
  },
  centre: { lat: 43.526, lon: 5.418 },
  approximatif: true,
};
