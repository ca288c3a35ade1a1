import { Alert, Text, VisuallyHidden } from '@mantine/core';
import { ETAPES, etapeIndex, HORS_ETAPES, STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUT_RADIEE, type Statut } from '../../../domain/statut.js';
import classes from './ProgressBar.module.css';

/**
 * The six steps (docs/produit.md « Statuts »): steps up to the current one are active, in their colour. The text says
 * the state too (colour is never the only signal). Radiée and Refusé are shown apart, outside the bar, with what
 * to do; their reason is the last dated step of the history, shown below.
 */
export function ProgressBar({ statut }: { statut: Statut }) {
  const current = etapeIndex(statut);
  const refused = HORS_ETAPES.includes(statut);
  const radiee = statut === STATUT_RADIEE;
  return (
    <div>
      <Text fw={600} mb="xs" id="progression-titre">
        {refused ? `Statut : ${statut}` : `Étape ${current + 1} sur ${ETAPES.length} : ${statut}`}
      </Text>
      {refused && (
        <Alert
          mb="sm"
          title={radiee ? 'Demande radiée' : 'Demande refusée'}
          styles={{ root: { background: STATUT_COULEURS[statut], color: STATUT_COULEUR_TEXTE }, title: { color: STATUT_COULEUR_TEXTE } }}
        >
          {radiee
            ? "Votre demande a été radiée : son motif figure dans l'historique ci-dessous. Si elle n'a pas été renouvelée à temps, vous pouvez la réactiver pendant quelques mois en gardant son ancienneté (voir « Validité de la demande »)."
            : "Votre demande n'a pas été retenue. Pour en connaître les raisons, adressez-vous à la mairie annexe du Jas de Bouffan."}
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
