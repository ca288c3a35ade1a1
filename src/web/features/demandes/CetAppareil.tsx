import { Button, Checkbox, Group, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { Dialog } from '../../components/Dialog.js';
import { oublierToutesLesCles, setSeSouvenir, useEstMemorisee } from '../../lib/clesDAcces.js';
import { cles } from '../../lib/queryKeys.js';

/**
 * « Se souvenir de cet appareil » (docs/produit.md « Confidentialité »): unticked, the private key is kept for
 * this tab only; ticked, in this browser until it is forgotten.
 */
export function SeSouvenirDeCetAppareil({ numeroUnique }: { numeroUnique: string }) {
  const memorisee = useEstMemorisee(numeroUnique);
  return (
    <Checkbox
      checked={memorisee}
      onChange={(e) => setSeSouvenir(numeroUnique, e.currentTarget.checked)}
      label="Se souvenir de cet appareil"
      description="Cochez pour revenir à votre demande depuis ce navigateur sans rouvrir le lien. Sur un ordinateur partagé (médiathèque, mairie, cybercafé), ne cochez pas : le lien sera oublié à la fermeture de l’onglet."
    />
  );
}

/** « Oublier cet appareil »: after a confirmation, every private key kept in this browser goes. */
export function OublierCetAppareil() {
  const [opened, { open, close }] = useDisclosure(false);
  const queryClient = useQueryClient();

  function oublier() {
    oublierToutesLesCles();
    close();
    // What was shown with a key is asked for again, without it.
    void queryClient.resetQueries({ queryKey: cles.demandes });
  }

  return (
    <>
      <Button variant="outline" color="red.8" onClick={open} w="fit-content">
        Oublier cet appareil
      </Button>
      <Dialog opened={opened} onClose={close} title="Oublier cet appareil ?" size="md">
        <Stack gap="md">
          <Text>
            Les liens privés de toutes les demandes enregistrées dans ce navigateur seront effacés. Pour revoir le détail d’une demande et
            envoyer des documents, il faudra rouvrir son lien privé (reçu par e-mail).
          </Text>
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={close}>
              Annuler
            </Button>
            <Button color="red.8" onClick={oublier}>
              Oublier cet appareil
            </Button>
          </Group>
        </Stack>
      </Dialog>
    </>
  );
}
