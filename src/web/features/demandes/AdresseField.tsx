import { CHAMPS_DEMANDE } from '../../../domain/demande.js';
import { AdresseField as ChampAdresse, type AdresseFieldProps } from '../../components/AdresseField.js';

/**
 * The housing request's address: the shared address field (components/AdresseField.tsx) with the request's label;
 * a picked suggestion fills adresse, code postal and ville (ChampsDemande.tsx).
 */
export function AdresseField(props: Omit<AdresseFieldProps, 'label' | 'description'>) {
  return <ChampAdresse {...props} label={CHAMPS_DEMANDE.adresse.label} description="Commencez à taper, puis choisissez une suggestion ou continuez à écrire." />;
}
