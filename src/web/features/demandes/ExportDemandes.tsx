import { Button, Checkbox, Group, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { CHAMPS_DEMANDE, COLONNES_CSV, COLONNES_EXPORT, SECTIONS_DEMANDE, type ChampLu, type ListeQuery } from '../../../domain/demande.js';
import { pluriel } from '../../../domain/pluriel.js';
import { Dialog } from '../../components/Dialog.js';
import { exportUrl } from './api.js';

/** The columns chosen last on this device (a manager's habit), or the default ones. */
const CLE = 'qv-export-colonnes';
function colonnesGardees(): ChampLu[] {
  try {
    const gardees = JSON.parse(localStorage.getItem(CLE) ?? 'null') as unknown;
    if (Array.isArray(gardees) && gardees.length > 0 && gardees.every((c) => (COLONNES_EXPORT as readonly unknown[]).includes(c))) return gardees as ChampLu[];
  } catch {
    // Nothing kept, or kept by an older version: the default columns.
  }
  return [...COLONNES_CSV];
}

const GROUPES: { titre: string; champs: readonly ChampLu[] }[] = [{ titre: 'Demande', champs: ['numeroUnique', 'dateDEnregistrement', 'statutDeLaDemande'] }, ...SECTIONS_DEMANDE];

/** « Exporter… »: the format and the columns of the filtered list's file (docs/produit.md « Liste des gestionnaires »). */
export function ExportDemandes({ params }: { params: ListeQuery }) {
  const [ouvert, setOuvert] = useState(false);
  const [format, setFormat] = useState<'csv' | 'xlsx'>('xlsx');
  const [colonnes, setColonnes] = useState<ChampLu[]>(colonnesGardees);
  const choisir = (suite: ChampLu[]) => {
    // Kept in the export's own order, whatever the order of the clicks.
    const rangees = COLONNES_EXPORT.filter((c) => suite.includes(c));
    setColonnes(rangees);
    localStorage.setItem(CLE, JSON.stringify(rangees));
  };
  return (
    <>
      <Button variant="outline" onClick={() => setOuvert(true)}>
        Exporter…
      </Button>
      <Dialog opened={ouvert} onClose={() => setOuvert(false)} title="Exporter la liste" size="xl">
        <Stack gap="md">
          <Text size="sm">Le fichier contient toutes les demandes de la liste affichée (recherche, filtres et tri compris), avec les colonnes cochées.</Text>
          <div>
            <Text fw={600} size="sm" id="format-export" mb={4}>
              Format
            </Text>
            <SegmentedControl
              aria-labelledby="format-export"
              value={format}
              onChange={(v) => setFormat(v as 'csv' | 'xlsx')}
              data={[
                { value: 'xlsx', label: 'Excel (.xlsx)' },
                { value: 'csv', label: 'CSV (Excel, point-virgule)' },
              ]}
            />
          </div>
          <Checkbox.Group label="Colonnes" value={colonnes} onChange={(v) => choisir(v as ChampLu[])}>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="md" mt="xs">
              {GROUPES.map((g) => (
                <Stack key={g.titre} gap={6} role="group" aria-label={g.titre}>
                  <Text size="sm" fw={600}>
                    {g.titre}
                  </Text>
                  {g.champs.map((c) => (
                    <Checkbox key={c} value={c} label={CHAMPS_DEMANDE[c].label} />
                  ))}
                </Stack>
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group justify="space-between" gap="sm">
            <Group gap="xs">
              <Button variant="subtle" onClick={() => choisir([...COLONNES_EXPORT])}>
                Tout cocher
              </Button>
              <Button variant="subtle" onClick={() => choisir([...COLONNES_CSV])}>
                Colonnes par défaut
              </Button>
            </Group>
            <Button
              component="a"
              href={exportUrl(params, format, colonnes)}
              download
              data-disabled={colonnes.length === 0 || undefined}
              onClick={(e) => (colonnes.length === 0 ? e.preventDefault() : setOuvert(false))}
            >
              Télécharger ({pluriel(colonnes.length, 'colonne', 'colonnes')})
            </Button>
          </Group>
        </Stack>
      </Dialog>
    </>
  );
}
