import { Alert, Button, Card, CloseButton, Group, NativeSelect, Progress, Stack, Text, Textarea } from '@mantine/core';
import { useRef, useState } from 'react';
import { avecMotif, MOTIF_MAX, requeteDeVue, type ListeQuery } from '../../../domain/demande.js';
import { LOT_MAX, type EtatLot, type NouveauLot } from '../../../domain/lots.js';
import { ETIQUETTES_PAR_DEMANDE_MAX } from '../../../domain/etiquettes.js';
import { accord, pluriel } from '../../../domain/pluriel.js';
import { STATUTS, type Statut } from '../../../domain/statut.js';
import { Dialog } from '../../components/Dialog.js';
import { FormulaireDeDialogue } from '../../components/FormulaireDeDialogue.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { useEtiquettes } from './apiEtiquettes.js';
import { useGestionnaires } from './apiInstruction.js';
import { ChoixGestionnaire } from './ChoixGestionnaire.js';
import { useEtatLot, useLancerLot } from './apiLots.js';

const nombre = new Intl.NumberFormat('fr-FR');
const demandes = (n: number) => pluriel(n, 'demande', 'demandes');
/**
 * « 1 non traitée (retirée ou effacée entre-temps, ou une erreur) »: the server counts as failed a request gone since
 * the action started and one a change could not be made to (a label deleted meanwhile, an error), without saying which.
 */
const nonTraitees = (n: number) =>
  `${pluriel(n, 'non traitée', 'non traitées')} (${accord(n, 'retirée ou effacée', 'retirées ou effacées')} entre-temps, ou une erreur)`;
/** « 1 laissée telle quelle (elle porte déjà 10 étiquettes, le maximum) », « 3 laissées telles quelles (elles portent …) ». */
const laisseesTellesQuelles = (n: number) =>
  `${pluriel(n, 'laissée telle quelle', 'laissées telles quelles')} (${accord(n, 'elle porte', 'elles portent')} déjà ${ETIQUETTES_PAR_DEMANDE_MAX} étiquettes, le maximum)`;

/** The rows chosen on the list: some numéros, or every request the filter matches. */
/** Some numéros, or every request of the filter (`total` of them) but those left out. */
export type Choix = { mode: 'numeros'; numeros: string[] } | { mode: 'filtre'; total: number; sauf: string[] };

/**
 * Bulk work (docs/produit.md « Travail par lot »): what is chosen, the offer to take every matching request,
 * a new status (confirmed, with a reason where one may be given), « Suivre », « Confier à… » a colleague (chosen
 * in the confirmation) or a label, then the progress and the count.
 * The list keeps it mounted whatever it shows (rows or none): an action that moves every row out of the list
 * keeps its progress and its count on screen, until the manager closes the count (`onFerme` then says where the
 * focus goes when nothing of the bar is left).
 */
export function BarreDeLot({
  choix,
  params,
  page,
  total,
  totalExact,
  onToutLeFiltre,
  onLance,
  onFerme,
}: {
  choix: Choix;
  params: ListeQuery;
  page: number;
  total: number;
  totalExact: boolean;
  onToutLeFiltre: () => void;
  onLance: () => void;
  /** The count of a finished action was closed and the bar shows nothing more: where the focus goes. */
  onFerme?: () => void;
}) {
  const lancer = useLancerLot();
  const [lotId, setLotId] = useState<string | null>(null);
  const { data: etat } = useEtatLot(lotId);
  const [statut, setStatut] = useState<Statut | ''>('');
  const [etiquette, setEtiquette] = useState('');
  const { data: etiquettes } = useEtiquettes();
  const [aConfirmer, setAConfirmer] = useState<
    { type: 'statut'; statut: Statut } | { type: 'suivre' } | { type: 'confier' } | { type: 'etiquette'; id: string; nom: string } | null
  >(null);
  const [motif, setMotif] = useState('');
  /** « Confier à… »: the colleague chosen in the confirmation, and whether « Confier » was pressed without one. */
  const [collegueId, setCollegueId] = useState('');
  const [sansCollegue, setSansCollegue] = useState(false);
  // The confirmation closed without launching (« Annuler », Escape, the close button): nothing of it stays for the
  // next one — its refusal, the reason typed (a refusal's, which a « Radiée » would otherwise mail to every person).
  const abandonner = () => {
    if (lancer.isPending) return;
    lancer.reset();
    setAConfirmer(null);
    setSansCollegue(false);
    setMotif('');
  };
  const gestionnaires = useGestionnaires(aConfirmer?.type === 'confier');
  const { data: moi } = useMoi();
  const collegue = gestionnaires.data?.find((g) => g.id === collegueId);
  const nouveauStatut = useRef<HTMLSelectElement>(null);
  const n = choix.mode === 'numeros' ? choix.numeros.length : Math.max(0, choix.total - choix.sauf.length);
  const enCours = lotId !== null && !etat?.fini;
  if (n === 0 && lotId === null) return null;

  /** Closes the count of the finished action: the focus stays in the bar if rows are still chosen. */
  const fermer = () => {
    setLotId(null);
    if (n > 0) nouveauStatut.current?.focus();
    else onFerme?.();
  };

  const envoyer = () => {
    if (!aConfirmer) return;
    if (aConfirmer.type === 'confier' && !collegue) {
      setSansCollegue(true);
      return;
    }
    const selection: NouveauLot['selection'] =
      choix.mode === 'numeros' ? { mode: 'numeros', numeros: choix.numeros } : { mode: 'filtre', requete: requeteDeVue(params), sauf: choix.sauf };
    const action: NouveauLot['action'] =
      aConfirmer.type === 'suivre'
        ? { type: 'suivre' }
        : aConfirmer.type === 'confier'
          ? { type: 'confier', gestionnaireId: collegueId }
          : aConfirmer.type === 'etiquette'
          ? { type: 'etiquette', id: aConfirmer.id }
            : { type: 'statut', statut: aConfirmer.statut, ...(motif.trim() ? { motif } : {}) };
    lancer.mutate(
      { selection, action },
      {
        onSuccess: (lot) => {
          setAConfirmer(null);
          setMotif('');
          setCollegueId('');
          setSansCollegue(false);
          setLotId(lot.id);
          onLance();
        },
      },
    );
  };

  return (
    <Card withBorder padding="sm" component="section" aria-label="Traitement par lot">
      <Stack gap="sm">
        {n > 0 && (
          <Group gap="sm" align="flex-end">
            <Text fw={600} style={{ alignSelf: 'center' }}>
              {pluriel(n, 'demande choisie', 'demandes choisies')}
              {choix.mode === 'filtre' ? (choix.sauf.length > 0 ? ` (celles du filtre, ${pluriel(choix.sauf.length, 'laissée de côté', 'laissées de côté')})` : ' (toutes celles du filtre)') : ''}
            </Text>
            <NativeSelect
              ref={nouveauStatut}
              label="Nouveau statut"
              value={statut}
              onChange={(e) => setStatut(e.currentTarget.value as Statut | '')}
              data={[{ value: '', label: 'Choisir…' }, ...STATUTS.map((s) => ({ value: s, label: s }))]}
              disabled={enCours}
            />
            <Button disabled={statut === '' || enCours} onClick={() => statut && setAConfirmer({ type: 'statut', statut })}>
              Changer le statut
            </Button>
            <Button variant="outline" disabled={enCours} onClick={() => setAConfirmer({ type: 'suivre' })}>
              Suivre ces demandes
            </Button>
            <Button variant="outline" disabled={enCours} onClick={() => setAConfirmer({ type: 'confier' })}>
              Confier ces demandes à…
            </Button>
            {etiquettes && etiquettes.length > 0 && (
              <>
                <NativeSelect
                  label="Étiquette à ajouter"
                  value={etiquette}
                  onChange={(e) => setEtiquette(e.currentTarget.value)}
                  data={[{ value: '', label: 'Choisir…' }, ...etiquettes.map((e) => ({ value: e.id, label: e.nom }))]}
                  disabled={enCours}
                />
                <Button
                  variant="outline"
                  disabled={etiquette === '' || enCours}
                  onClick={() => setAConfirmer({ type: 'etiquette', id: etiquette, nom: etiquettes.find((e) => e.id === etiquette)?.nom ?? '' })}
                >
                  Ajouter l’étiquette
                </Button>
              </>
            )}
          </Group>
        )}
        {choix.mode === 'numeros' && n === page && total > page && (
          <Group gap="xs">
            <Text size="sm">{n === 1 ? 'La demande de la page est choisie.' : `Les ${demandes(n)} de la page sont choisies.`}</Text>
            {totalExact && total <= LOT_MAX ? (
              <Button variant="subtle" size="compact-sm" onClick={onToutLeFiltre}>
                Choisir les {demandes(total)} correspondant au filtre
              </Button>
            ) : (
              <Text size="sm">
                Plus de {nombre.format(LOT_MAX)} demandes correspondent : affinez le filtre pour les traiter ensemble.
              </Text>
            )}
          </Group>
        )}
        <Progression etat={etat} onFermer={fermer} />
      </Stack>
      <Dialog
        opened={aConfirmer !== null}
        onClose={abandonner}
        title={
          aConfirmer?.type === 'statut'
            ? `Passer ${demandes(n)} à « ${aConfirmer.statut} » ?`
            : aConfirmer?.type === 'etiquette'
              ? `Ajouter « ${aConfirmer.nom} » à ${demandes(n)} ?`
              : aConfirmer?.type === 'confier'
                ? `Confier ${demandes(n)} à un collègue ?`
                : `Suivre ${demandes(n)} ?`
        }
        size="md"
      >
        <FormulaireDeDialogue
          onSubmit={envoyer}
          erreur={lancer.error && errorMessage(lancer.error, 'Le traitement n’a pas pu commencer.')}
          enCours={lancer.isPending}
          onAnnuler={abandonner}
          envoyer={
            aConfirmer?.type === 'statut'
              ? 'Changer le statut'
              : aConfirmer?.type === 'etiquette'
                ? 'Ajouter l’étiquette'
                : aConfirmer?.type === 'confier'
                  ? 'Confier'
                  : 'Suivre'
          }
        >
          {aConfirmer?.type === 'statut' ? (
            <Text>Chaque personne recevra un e-mail annonçant son nouveau statut. Ce changement ne pourra pas être annulé en une fois.</Text>
          ) : aConfirmer?.type === 'etiquette' ? (
            <Text>L’étiquette s’ajoute à celles que les demandes portent déjà.</Text>
          ) : aConfirmer?.type === 'confier' ? (
            <>
              <ChoixGestionnaire
                gestionnaires={gestionnaires}
                value={collegueId}
                onChange={setCollegueId}
                erreur={sansCollegue && !collegue ? 'Choisissez le gestionnaire à qui confier ces demandes.' : undefined}
              />
              <Text>
                {collegue && collegue.id === moi?.uid
                  ? 'Vous suivrez ces demandes, à la place du collègue qui en suit peut-être certaines.'
                  : `${collegue?.nom ?? 'Le gestionnaire choisi'} suivra ces demandes, à la place du collègue qui en suit peut-être certaines ; un seul e-mail l’en informe, pour toutes.`}
              </Text>
            </>
          ) : (
            <Text>Vous suivrez ces demandes, à la place du collègue qui en suit peut-être certaines.</Text>
          )}
          {aConfirmer?.type === 'statut' && avecMotif(aConfirmer.statut) && (
            <Textarea
              label="Motif (facultatif)"
              description="Les personnes le liront dans l’e-mail et sur leur demande."
              value={motif}
              maxLength={MOTIF_MAX}
              onChange={(e) => setMotif(e.currentTarget.value)}
              autosize
              minRows={2}
            />
          )}
        </FormulaireDeDialogue>
      </Dialog>
    </Card>
  );
}

/**
 * The running action's progress, then what it did, read by screen readers when it ends; the count stays until
 * the manager closes it (its close button outside the live region, so that only the count is read).
 */
function Progression({ etat, onFermer }: { etat: EtatLot | undefined; onFermer: () => void }) {
  if (!etat) return null;
  // `completes` may be missing from an instance not yet updated (a rolling deployment).
  const completes = etat.completes ?? 0;
  const fait = etat.faits + etat.inchanges + completes + etat.echecs;
  return (
    <Group gap="xs" align="flex-start" wrap="nowrap">
      <div style={{ flex: 1, minWidth: 0 }}>
        {!etat.fini && (
          <>
            <Text size="sm" mb={4}>
              Traitement en cours : {nombre.format(fait)} sur {nombre.format(etat.total)}
            </Text>
            <Progress value={etat.total ? (fait * 100) / etat.total : 100} aria-label="Progression du traitement par lot" animated />
          </>
        )}
        <div role="status" aria-live="polite">
          {etat.fini && (
            <Alert role="none" color={etat.echecs > 0 || etat.interrompu ? 'yellow' : 'teal'} variant="light">
              {etat.interrompu ? 'Traitement interrompu par un arrêt du serveur' : 'Traitement terminé'} : {pluriel(etat.faits, 'demande modifiée', 'demandes modifiées')}
              {etat.inchanges > 0 ? `, ${nombre.format(etat.inchanges)} déjà dans cet état` : ''}
              {completes > 0 ? `, ${laisseesTellesQuelles(completes)}` : ''}
              {etat.echecs > 0 ? `, ${nonTraitees(etat.echecs)}` : ''}
              {etat.interrompu ? ` ; ${pluriel(etat.total - fait, 'demande non traitée', 'demandes non traitées')} : relancez le lot pour ${etat.total - fait > 1 ? 'elles' : 'elle'}` : ''}.
            </Alert>
          )}
        </div>
      </div>
      {etat.fini && <CloseButton size="lg" aria-label="Fermer le compte rendu du traitement par lot" onClick={onFermer} />}
    </Group>
  );
}
