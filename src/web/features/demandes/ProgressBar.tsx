import { Alert, Text, VisuallyHidden } from '@mantine/core';
import { ETAPES, etapeIndex, STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUT_REFUSE, type Statut } from '../../../domain/statut.js';
import classes from './ProgressBar.module.css';

/**
 * The six steps (docs/produit.md « Statuts »): steps up to the current one are active, in their colour. The text says
 * the state too (colour is never the only signal). Refusé is shown apart, outside the bar.
 */
export function ProgressBar({ statut }: { statut: Statut }) {
  const current = etapeIndex(statut);
  const refused = statut === STATUT_REFUSE;
  return (
    <div>
      <Text fw={600} mb="xs" id="progression-titre">
        {refused ? 'Statut : Refusé' : `Étape ${current + 1} sur ${ETAPES.length} : ${statut}`}
      </Text>
      {refused && (
        <Alert
          mb="sm"
          title="Demande refusée"
          styles={{ root: { background: STATUT_COULEURS[STATUT_REFUSE], color: STATUT_COULEUR_TEXTE }, title: { color: STATUT_COULEUR_TEXTE } }}
        >
          Votre demande n'a pas été retenue. Pour en connaître les raisons, adressez-vous à la mairie annexe du Jas de Bouffan.
        </Alert>
      )}
      <ol className={classes.steps} aria-labelledby="progression-titre">
        {ETAPES.map((etape, i) => {
          const active = !refused && i <= current;
          const isCurrent = !refused && i === current;
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
