import { Alert, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useRef, useState } from 'react';
import { formatJour } from '../../../domain/dates.js';
import { errorMessage } from '../../lib/api.js';
import { telechargerAttestation, useCycleDeVie, useReactiver, useRenouveler } from './apiCycleDeVie.js';

/**
 * « Validité de la demande » (docs/produit.md « Cycle de vie d'une demande »): until when the request is valid,
 * « Renouveler ma demande » from two months before, « Réactiver ma demande » once struck off, and the
 * attestation d'enregistrement while it is open; once closed, since when, and from when it is erased. Shown to
 * whoever sees the request in full.
 */
export function CycleDeVie({ numero }: { numero: string }) {
  const { data, error } = useCycleDeVie(numero);
  const renouveler = useRenouveler(numero);
  const reactiver = useReactiver(numero);
  const [fait, setFait] = useState<string | null>(null);
  const [echec, setEchec] = useState<string | null>(null);
  const [telechargement, setTelechargement] = useState(false);
  const message = useRef<HTMLDivElement>(null);
  // After an action, the focus goes to its message, so that a screen reader reads it.
  const annoncer = (texte: string | null, erreur: string | null) => {
    setFait(texte);
    setEchec(erreur);
    setTimeout(() => message.current?.focus(), 0);
  };

  const maintenant = new Date().toISOString();
  const renouvelable = data?.renouvelableDes != null && maintenant >= data.renouvelableDes;
  const reactivable = data?.reactivableJusqua != null && maintenant <= data.reactivableJusqua;

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="cycle-titre">
      <Stack gap="sm">
        <Title order={2} size="h4" id="cycle-titre">
          Validité de la demande
        </Title>
        {error && <Alert color="red">{errorMessage(error, 'La validité de la demande n’a pas pu être lue.')}</Alert>}
        {data && (
          <>
            {data.radieeLe ? (
              <Text>
                Radiée le {formatJour(data.radieeLe)} faute de renouvellement (elle était valable jusqu’au {formatJour(data.valideJusqua)}).
                {data.reactivableJusqua &&
                  (reactivable
                    ? ` Vous pouvez la réactiver jusqu’au ${formatJour(data.reactivableJusqua)}\u00a0: elle garde son ancienneté.`
                    : ` Le délai de réactivation a pris fin le ${formatJour(data.reactivableJusqua)}\u00a0: déposez une nouvelle demande.`)}
              </Text>
            ) : data.clotureeLe ? (
              <Text fw={600}>Demande close le {formatJour(data.clotureeLe)}&nbsp;: elle n’a plus de date de validité.</Text>
            ) : (
              <Text fw={600}>Valable jusqu’au {formatJour(data.valideJusqua)}.</Text>
            )}
            {data.effaceeAPartirDu && (
              <Text size="sm">
                Ses données personnelles et ses documents seront effacés à partir du {formatJour(data.effaceeAPartirDu)}&nbsp;; seul l’historique anonyme de ses
                statuts restera.
              </Text>
            )}
            {data.renouvelableDes && !renouvelable && (
              <Text size="sm">Une demande se renouvelle chaque année&nbsp;: vous pourrez la renouveler à partir du {formatJour(data.renouvelableDes)}. Nous vous le rappellerons par e-mail.</Text>
            )}
          </>
        )}
        <div ref={message} tabIndex={-1} role="status" aria-live="polite">
          {fait && (
            <Alert role="none" color="green" withCloseButton closeButtonLabel="Fermer le message" onClose={() => setFait(null)}>
              {fait}
            </Alert>
          )}
          {echec && (
            <Alert role="none" color="red" withCloseButton closeButtonLabel="Fermer le message" onClose={() => setEchec(null)}>
              {echec}
            </Alert>
          )}
        </div>
        {(renouvelable || reactivable || !data?.clotureeLe) && (
          <Group gap="sm">
            {renouvelable && (
              <Button
                loading={renouveler.isPending}
                onClick={() =>
                  renouveler.mutate(undefined, {
                    onSuccess: (cycle) => annoncer(`Votre demande est renouvelée\u00a0: elle est valable jusqu’au ${formatJour(cycle.valideJusqua)}.`, null),
                    onError: (e) => annoncer(null, errorMessage(e, 'Le renouvellement n’a pas abouti. Réessayez.')),
                  })
                }
              >
                Renouveler ma demande
              </Button>
            )}
            {reactivable && (
              <Button
                loading={reactiver.isPending}
                onClick={() =>
                  reactiver.mutate(undefined, {
                    onSuccess: (r) =>
                      annoncer(`Votre demande est réactivée (statut\u00a0: ${r.statutDeLaDemande}) ; elle est valable jusqu’au ${formatJour(r.cycleDeVie.valideJusqua)}.`, null),
                    onError: (e) => annoncer(null, errorMessage(e, 'La réactivation n’a pas abouti. Réessayez.')),
                  })
                }
              >
                Réactiver ma demande
              </Button>
            )}
            {/* A closed request is valid no longer: no attestation is given for it (the server refuses it too). */}
            {!data?.clotureeLe && (
              <Button
                variant="outline"
                // A long label wraps on a phone instead of being cut.
                styles={{ root: { height: 'auto', minHeight: 36, paddingBlock: 6 }, label: { whiteSpace: 'normal', textAlign: 'center', lineHeight: 1.35 } }}
                loading={telechargement}
                onClick={() => {
                  setTelechargement(true);
                  telechargerAttestation(numero)
                    .catch((e: unknown) => annoncer(null, errorMessage(e, 'L’attestation n’a pas pu être téléchargée. Réessayez.')))
                    .finally(() => setTelechargement(false));
                }}
              >
                {/* The format and the weight (RGAA 13.3): test/attestation.test.ts keeps the file under 25 Ko. */}
                Télécharger l’attestation d’enregistrement (PDF, environ 20&nbsp;Ko)
              </Button>
            )}
          </Group>
        )}
      </Stack>
    </Card>
  );
}
