import { Alert, Button, Checkbox, Group, Loader, SegmentedControl, SimpleGrid, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { COLONNES_CSV, COLONNES_EXPORT, COLONNES_INSTRUCTION, labelColonne, SECTIONS_DEMANDE, type ColonneExport, type ColonneInstruction, type ListeQuery } from '../../../domain/demande.js';
import type { ExportJournalise } from '../../../domain/instruction.js';
import { pluriel } from '../../../domain/pluriel.js';
import { Dialog } from '../../components/Dialog.js';
import { exportUrl } from './api.js';
import { useDerniersExports } from './apiInstruction.js';

/** The columns chosen last on this device (a manager's habit), or the default ones. */
const CLE = 'qv-export-colonnes';
function colonnesGardees(): ColonneExport[] {
  try {
    const gardees = JSON.parse(localStorage.getItem(CLE) ?? 'null') as unknown;
    if (Array.isArray(gardees) && gardees.length > 0 && gardees.every((c) => (COLONNES_EXPORT as readonly unknown[]).includes(c))) return gardees as ColonneExport[];
  } catch {
    // Nothing kept, or kept by an older version: the default columns.
  }
  return [...COLONNES_CSV];
}

const GROUPES: { titre: string; champs: readonly ColonneExport[] }[] = [
  { titre: 'Demande', champs: ['numeroUnique', 'dateDEnregistrement', 'statutDeLaDemande'] },
  // The desk's own columns: validity, corrections, labels, follower.
  { titre: 'Instruction', champs: Object.keys(COLONNES_INSTRUCTION) as ColonneInstruction[] },
  ...SECTIONS_DEMANDE,
];

/** « Exporter… »: the format and the columns of the filtered list's file (docs/produit.md « Liste des gestionnaires »). */
export function ExportDemandes({ params }: { params: ListeQuery }) {
  const [ouvert, setOuvert] = useState(false);
  const [format, setFormat] = useState<'csv' | 'xlsx'>('xlsx');
  const [colonnes, setColonnes] = useState<ColonneExport[]>(colonnesGardees);
  const choisir = (suite: ColonneExport[]) => {
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
          <Checkbox.Group label="Colonnes" value={colonnes} onChange={(v) => choisir(v as ColonneExport[])}>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="md" mt="xs">
              {GROUPES.map((g) => (
                <Stack key={g.titre} gap={6} role="group" aria-label={g.titre}>
                  <Text size="sm" fw={600}>
                    {g.titre}
                  </Text>
                  {g.champs.map((c) => (
                    <Checkbox key={c} value={c} label={labelColonne(c)} />
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
          <DerniersExports />
        </Stack>
      </Dialog>
    </>
  );
}

/** How many of the latest exports the dialog lists (the route gives up to 20). */
const AFFICHES = 5;
const FORMATS: Record<NonNullable<ExportJournalise['format']>, string> = { xlsx: 'Excel (.xlsx)', csv: 'CSV' };

/** « Derniers exports » (docs/produit.md « Instruction »): who exported the list, when, in which format, how many columns. */
function DerniersExports() {
  const { data, error } = useDerniersExports();
  return (
    <Stack gap={4} component="section" aria-labelledby="derniers-exports-titre">
      <Text fw={600} size="sm" id="derniers-exports-titre">
        Derniers exports
      </Text>
      {error && (
        <Alert color="red" variant="light">
          Les derniers exports n’ont pas pu être chargés.
        </Alert>
      )}
      {!data && !error && <Loader size="xs" role="progressbar" aria-label="Chargement des derniers exports" />}
      {data && data.length === 0 && (
        <Text size="sm" c="dimmed">
          Aucun export pour le moment.
        </Text>
      )}
      {data && data.length > 0 && (
        <Stack gap={2} component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {data.slice(0, AFFICHES).map((e, i) => (
            <li key={`${e.le}-${i}`}>
              <Text size="sm">
                {formatHorodatage(e.le)} — {e.par}
                {e.format ? ` — ${FORMATS[e.format]}` : ''}
                {e.colonnes !== null ? `, ${pluriel(e.colonnes, 'colonne', 'colonnes')}` : ''}
              </Text>
            </li>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
