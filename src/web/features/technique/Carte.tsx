import 'leaflet/dist/leaflet.css';
import { Button } from '@mantine/core';
import { IconCurrentLocation } from '@tabler/icons-react';
import L from 'leaflet';
import { useEffect, useRef } from 'react';
import type { Carte as ReglagesCarte } from '../../../domain/carte.js';
import type { EtatSignalement, Perimetre, Point } from '../../../domain/signalements.js';
import { ETATS_OUVERTS } from '../../../domain/signalements.js';
import styles from './Carte.module.css';

/**
 * The district's map (Leaflet 1.9), loaded on the technique pages only: this module, Leaflet and its stylesheet
 * are one chunk that CarteDuQuartier.tsx imports on demand (nothing else imports it), so the landing page and
 * the housing pages never carry them.
 *
 * What it does is never the only way (RGAA 4.1, 7.1): the pages beside it give a list of the reports and an
 * address, a position and a button that places the point at the map's centre (after moving it with the arrow
 * keys). For keyboard and screen-reader users the map is a named region that takes the focus (arrows pan, + and −
 * zoom), each report a link named by its number, title and state, reached with Tab, opened with Enter.
 */

/** A report drawn on the map. */
export interface Marqueur {
  numero: string;
  lat: number;
  lon: number;
  /** Its accessible name: number, title, state. */
  nom: string;
  etat: EtatSignalement;
}

export interface CarteProps {
  perimetre: Perimetre;
  tuiles: ReglagesCarte;
  /** The map region's name (« Carte des signalements du quartier »). */
  nom: string;
  /** What to do with it, read by screen readers when the map gets the focus. */
  description?: string;
  marqueurs?: readonly Marqueur[];
  /** A report's mark was chosen (tap, click, Enter). Without it the marks are drawings, not targets. */
  onMarqueur?: (numero: string) => void;
  /** The point being placed (a new report), or the report shown. */
  point?: Point | null;
  /** The map was tapped or clicked somewhere, or « Placer le point au centre de la carte » was chosen. */
  onToucher?: (point: Point) => void;
  /** Where the map opens, and how close (by default the whole district). */
  centre?: Point;
  zoom?: number;
  petite?: boolean;
}

/** The closest zoom of the Géoplateforme's Plan IGN v2 (its smallest scale denominator, 1:1066). */
const ZOOM_MAX = 19;
/** A placed point is shown this close at least: a street and its numbers. */
const ZOOM_POINT = 17;

const echapper = (texte: string) => texte.replace(/[&<>"']/gu, (c) => `&#${c.charCodeAt(0)};`);

/** A GeoJSON ring (longitude, latitude) as Leaflet's points (latitude, longitude). */
const anneau = (ring: readonly (readonly [number, number])[]): L.LatLngExpression[] => ring.map(([lon, lat]) => [lat, lon] as L.LatLngTuple);

function classeEtat(etat: EtatSignalement): string {
  if (ETATS_OUVERTS.includes(etat)) return styles.ouvert!;
  return etat === 'resolu' ? styles.resolu! : styles.ferme!;
}

/** The glyph in a mark, beside its colour (never the colour alone): ! open, ✓ resolved, × closed. */
function glyphe(etat: EtatSignalement): string {
  if (ETATS_OUVERTS.includes(etat)) return '!';
  return etat === 'resolu' ? '✓' : '×';
}

function icone(className: string, texte: string, taille: number): L.DivIcon {
  return L.divIcon({
    className: styles.marqueur!,
    html: `<span class="${styles.goutte} ${className}"><span aria-hidden="true">${echapper(texte)}</span></span>`,
    iconSize: [taille, taille],
    // The tip of the drop (its bottom-left corner turned down) is on the point.
    iconAnchor: [taille / 2, taille * 1.2],
  });
}

export default function Carte({ perimetre, tuiles, nom, description, marqueurs, onMarqueur, point, onToucher, centre, zoom, petite = false }: CarteProps) {
  const element = useRef<HTMLDivElement>(null);
  const carte = useRef<L.Map | null>(null);
  const calqueMarqueurs = useRef<L.LayerGroup | null>(null);
  const marqueurDuPoint = useRef<L.Marker | null>(null);
  // The latest handlers, read by Leaflet's listeners (set once, with the map).
  const rappels = useRef({ onMarqueur, onToucher });
  useEffect(() => {
    rappels.current = { onMarqueur, onToucher };
  });
  const placer = Boolean(onToucher);
  const interactifs = Boolean(onMarqueur);
  const descriptionId = `${nom.replace(/\W+/gu, '-').toLowerCase()}-aide`;

  // The map, once: tiles, attribution, zoom buttons in French, the district's boundary.
  useEffect(() => {
    const el = element.current;
    if (!el) return;
    const map = L.map(el, {
      zoomControl: false,
      attributionControl: false,
      // The page scrolls under the wheel; the map zooms with its buttons, + and −, a double tap or two fingers.
      scrollWheelZoom: false,
      maxZoom: ZOOM_MAX,
      minZoom: 12,
      // Half steps: the whole district fills the map at any width, not only at the zoom level below.
      zoomSnap: 0.5,
    });
    L.control.zoom({ zoomInTitle: 'Zoom avant', zoomOutTitle: 'Zoom arrière' }).addTo(map);
    L.control.attribution({ prefix: '<a href="https://leafletjs.com" hreflang="en">Leaflet</a>' }).addTo(map);
    L.tileLayer(tuiles.tuilesUrl, { attribution: echapper(tuiles.attribution), maxZoom: ZOOM_MAX, crossOrigin: false }).addTo(map);
    const [exterieur = [], ...trous] = perimetre.perimetre.coordinates;
    const contour = L.polygon([anneau(exterieur), ...trous.map(anneau)], {
      interactive: false,
      color: '#1864ab',
      weight: 3,
      dashArray: '8 6',
      fillColor: '#1864ab',
      fillOpacity: 0.06,
    }).addTo(map);
    if (centre) map.setView([centre.lat, centre.lon], zoom ?? ZOOM_POINT);
    else map.fitBounds(contour.getBounds(), { padding: [8, 8] });
    map.on('click', (e: L.LeafletMouseEvent) => rappels.current.onToucher?.({ lat: e.latlng.lat, lon: e.latlng.lng }));
    calqueMarqueurs.current = L.layerGroup().addTo(map);
    carte.current = map;
    // Leaflet makes its container focusable (arrows pan it): a named region, its use described.
    el.setAttribute('role', 'region');
    el.setAttribute('aria-label', nom);
    return () => {
      map.remove();
      carte.current = null;
      calqueMarqueurs.current = null;
      marqueurDuPoint.current = null;
    };
    // The map is made once per page; its content follows the props below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tuiles.tuilesUrl]);

  useEffect(() => {
    element.current?.setAttribute('aria-label', nom);
    if (description) element.current?.setAttribute('aria-describedby', descriptionId);
    else element.current?.removeAttribute('aria-describedby');
  }, [nom, description, descriptionId]);

  // The reports: one mark each, a link named by its number, title and state.
  useEffect(() => {
    const calque = calqueMarqueurs.current;
    if (!calque) return;
    calque.clearLayers();
    for (const m of marqueurs ?? []) {
      const marqueur = L.marker([m.lat, m.lon], {
        icon: icone(classeEtat(m.etat), glyphe(m.etat), 28),
        keyboard: interactifs,
        interactive: interactifs,
        title: m.nom,
        riseOnHover: true,
      });
      if (interactifs) marqueur.on('click', () => rappels.current.onMarqueur?.(m.numero));
      marqueur.addTo(calque);
      const el = marqueur.getElement();
      if (!el) continue;
      if (interactifs) {
        // It opens the report's page: a link, named (Leaflet makes it a button with a title), opened with Enter as
        // a link is (Leaflet 1.9 turns Enter into a click for popups only).
        el.setAttribute('role', 'link');
        el.setAttribute('aria-label', m.nom);
        el.addEventListener('keydown', (event) => {
          if (event.key !== 'Enter') return;
          event.preventDefault();
          rappels.current.onMarqueur?.(m.numero);
        });
      } else {
        // A drawing: the list beside the map says the same.
        el.setAttribute('aria-hidden', 'true');
        el.removeAttribute('title');
      }
    }
  }, [marqueurs, interactifs]);

  // The point being placed, shown and brought into view.
  useEffect(() => {
    const map = carte.current;
    if (!map) return;
    marqueurDuPoint.current?.remove();
    marqueurDuPoint.current = null;
    if (!point) return;
    const marqueur = L.marker([point.lat, point.lon], { icon: icone(styles.point!, '', 34), keyboard: false, interactive: false, zIndexOffset: 1000 }).addTo(map);
    marqueur.getElement()?.setAttribute('aria-hidden', 'true');
    marqueurDuPoint.current = marqueur;
    if (!map.getBounds().pad(-0.1).contains([point.lat, point.lon]) || map.getZoom() < ZOOM_POINT) {
      map.setView([point.lat, point.lon], Math.max(map.getZoom(), ZOOM_POINT));
    }
  }, [point]);

  return (
    <div>
      <div className={styles.conteneur}>
        <div ref={element} className={`${styles.carte} ${petite ? styles.petite : ''}`} />
        {placer && <div className={styles.viseur} aria-hidden="true" />}
      </div>
      {description && (
        <p id={descriptionId} hidden>
          {description}
        </p>
      )}
      {placer && (
        <Button
          variant="default"
          mt="xs"
          leftSection={<IconCurrentLocation size={18} aria-hidden="true" />}
          onClick={() => {
            const c = carte.current?.getCenter();
            if (c) rappels.current.onToucher?.({ lat: c.lat, lon: c.lng });
          }}
        >
          Placer le point au centre de la carte
        </Button>
      )}
    </div>
  );
}
