import { Alert, Text, VisuallyHidden } from '@mantine/core';
import { ETAPES, etapeIndex, HORS_ETAPES, STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUT_EXPLICATIONS, STATUT_RADIEE, type Statut } from '../../../domain/statut.js';
import classes from './ProgressBar.module.css';

/**
 * The six steps (docs/produit.md « Statuts »): steps up to the current one are active, in their colour. The text says
 * the state too (colour is never the only signal), and what the current status means for the applicant
 * (STATUT_EXPLICATIONS), in plain words under it. Radiée and Refusé are not steps: only the status, what it means
 * and its reason show (the reason given with the change, from the history), never the six steps.
 */
export function ProgressBar({ statut, motif }: { statut: Statut; motif?: string | null | undefined }) {
  if (HORS_ETAPES.includes(statut)) return <HorsEtapes statut={statut} motif={motif} />;
  const current = etapeIndex(statut);
  return (
    <div>
      <Text fw={600} id="progression-titre">
        {`Étape ${current + 1} sur ${ETAPES.length} : ${statut}`}
      </Text>
      <Text size="sm" mt={4} mb="sm">
        {STATUT_EXPLICATIONS[statut]}
      </Text>
      <ol className={classes.steps} aria-labelledby="progression-titre">
        {ETAPES.map((etape, i) => {
          const active = i <= current;
          const isCurrent = i === current;
          const state = isCurrent ? 'étape actuelle' : active ? 'étape franchie' : 'étape à venir';
          return (
            <li
              key={etape}
              className={[classes.step, active ? classes.active : '', isCurrent ? classes.current : ''].join(' ')}
              aria-current={isCurrent ? 'step' : undefined}
              data-active={active}
            >
              <span className={classes.bar} style={active ? { background: STATUT_COULEURS[etape], borderColor: STATUT_COULEURS[etape] } : undefined} />
              <span className={classes.label}>
                {etape}
                <VisuallyHidden> ({state})</VisuallyHidden>
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/** Radiée or Refusé: the status, what it means, and the reason given with it when there is one. */
function HorsEtapes({ statut, motif }: { statut: Statut; motif?: string | null | undefined }) {
  return (
    <div>
      <Text fw={600} mb="xs">
        {`Statut : ${statut}`}
      </Text>
      <Alert
        role="note"
        title={statut === STATUT_RADIEE ? 'Demande radiée' : 'Demande refusée'}
        styles={{ root: { background: STATUT_COULEURS[statut], color: STATUT_COULEUR_TEXTE }, title: { color: STATUT_COULEUR_TEXTE } }}
      >
        <Text size="sm" c={STATUT_COULEUR_TEXTE}>
          {STATUT_EXPLICATIONS[statut]}
        </Text>
        {motif && (
          <Text size="sm" c={STATUT_COULEUR_TEXTE} mt="xs" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
            {`Motif : ${motif}`}
          </Text>
        )}
      </Alert>
    </div>
  );
}
