import { Text } from '@mantine/core';
import { BientotPage } from '../../components/BientotPage.js';

export function ConnexionPage() {
  return (
    <BientotPage title="Connexion">
      <Text>
        Les comptes habitants arrivent bientôt. Vous n'en avez pas besoin pour déposer une demande de logement : le lien privé reçu à
        l'enregistrement suffit pour la suivre et envoyer vos documents.
      </Text>
    </BientotPage>
  );
}
