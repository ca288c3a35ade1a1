import { Alert, Center, Text } from '@mantine/core';
import { Component, lazy, Suspense, type ReactNode } from 'react';
import type { CarteProps } from './Carte.js';
import { useCarte, usePerimetre } from './api.js';

/**
 * Leaflet and the map's code arrive only when a technique page draws a map: this dynamic import is the one way to
 * Carte.tsx (and so to `leaflet` and `leaflet.css`), which the build puts in a chunk of its own.
 */
const Carte = lazy(() => import('./Carte.js'));

/** What the page says where the map cannot be drawn: what to use instead. */
function SansCarte({ alternative }: { alternative: string }) {
  return (
    <Alert role="note" color="gray" variant="light" title="La carte n’a pas pu s’afficher">
      {alternative}
    </Alert>
  );
}

/** A failed load of the map's code (offline, a new version deployed meanwhile): the page stays usable. */
class SiLaCarteEchoue extends Component<{ alternative: string; children: ReactNode }, { echec: boolean }> {
  override state = { echec: false };
  static getDerivedStateFromError() {
    return { echec: true };
  }
  override render() {
    return this.state.echec ? <SansCarte alternative={this.props.alternative} /> : this.props.children;
  }
}

function Chargement({ petite }: { petite: boolean | undefined }) {
  return (
    <Center h={petite ? '13rem' : '18rem'} bg="gray.1" style={{ borderRadius: 'var(--mantine-radius-md)' }}>
      <Text size="sm">Chargement de la carte…</Text>
    </Center>
  );
}

/**
 * The district's map with its settings (tiles, boundary) read from the server. `alternative` says what to use when
 * the map cannot be drawn (the list, the address, the position): the map is never the only way.
 */
export function CarteDuQuartier({ alternative, ...props }: Omit<CarteProps, 'perimetre' | 'tuiles'> & { alternative: string }) {
  const tuiles = useCarte();
  const perimetre = usePerimetre();
  if (tuiles.error || perimetre.error) return <SansCarte alternative={alternative} />;
  if (!tuiles.data || !perimetre.data) return <Chargement petite={props.petite} />;
  return (
    <SiLaCarteEchoue alternative={alternative}>
      <Suspense fallback={<Chargement petite={props.petite} />}>
        <Carte {...props} perimetre={perimetre.data} tuiles={tuiles.data} />
      </Suspense>
    </SiLaCarteEchoue>
  );
}
