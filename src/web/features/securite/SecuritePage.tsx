import { Alert, Anchor, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import type { PoliceMunicipale } from '../../../domain/informations.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { usePoliceMunicipale } from './api.js';
import classes from './SecuritePage.module.css';

/** A number to call (`tel:`) or to write to (`sms:`), with what it is for. */
interface Numero {
  numero: string;
  nom: string;
  usage: ReactNode;
  /** The links: call, text, or a site for what a phone cannot do. */
  liens: { href: string; libelle: string }[];
}

/*
 * What each number is for, in Service-Public's words (Direction de l’information légale et administrative,
 * « Numéros d’urgence », version of 22 July 2024, as republished by communes, e.g. saintviance.fr/numeros-durgences/
 * and montpellier-infos.fr « Service-Public.fr fait le point sur les numéros d’urgence »), with the SDIS 04's
 * « Quel numéro d’urgence composer : 18, 112, 15 ou 17 ? » (sdis04.fr) for the 112. The 114 takes texts, and video,
 * chat or voice through its application and urgence114.fr (Centre national relais 114; cramif.fr), not an ordinary
 * phone call (destinationsante.com, January 2024): it gets an `sms:` link and its site, not a `tel:` link.
 */
const URGENCES: Numero[] = [
  {
    numero: '17',
    nom: 'Police secours (police ou gendarmerie)',
    usage: 'Une infraction qui demande une intervention immédiate : violences, agression, vol à l’arraché, cambriolage en cours…',
    liens: [{ href: 'tel:17', libelle: 'Appeler le 17' }],
  },
  {
    numero: '112',
    nom: 'Numéro d’urgence européen',
    usage: 'Toute urgence, en France et dans tous les pays de l’Union européenne : vous êtes orienté vers le bon service (police, pompiers ou Samu).',
    liens: [{ href: 'tel:112', libelle: 'Appeler le 112' }],
  },
  {
    numero: '15',
    nom: 'Samu (urgence médicale)',
    usage: 'Une détresse vitale : malaise, douleur dans la poitrine, difficultés à respirer, hémorragie, brûlure, intoxication…',
    liens: [{ href: 'tel:15', libelle: 'Appeler le 15' }],
  },
  {
    numero: '18',
    nom: 'Sapeurs-pompiers',
    usage: 'Un incendie, une fuite de gaz, un accident de la route, un risque d’effondrement, une électrocution…',
    liens: [{ href: 'tel:18', libelle: 'Appeler le 18' }],
  },
  {
    numero: '114',
    nom: 'Urgences par SMS, visio ou tchat',
    usage: (
      <>
        Pour les personnes sourdes, malentendantes, aphasiques, ou qui ne peuvent pas parler. Le 114 prévient la police, la
        gendarmerie, le Samu ou les pompiers. Écrivez où vous êtes et ce qui se passe.
      </>
    ),
    liens: [
      { href: 'sms:114', libelle: 'Envoyer un SMS au 114' },
      { href: 'https://www.urgence114.fr/', libelle: 'Visio, tchat et application : urgence114.fr' },
    ],
  },
];

/*
 * Listening lines for violence. 3919: Violences Femmes Info, free and anonymous, every day round the clock since
 * August 2021 (ministry's release relayed by informations.handicap.fr; tf1info.fr, November 2023). 119: Allô enfance en
 * danger, free, round the clock, absent from phone bills (allo119.gouv.fr, as quoted by guernes.eu and madinin-art.net).
 */
const ECOUTE: Numero[] = [
  {
    numero: '3919',
    nom: 'Violences Femmes Info',
    usage: 'Écoute et orientation des femmes victimes de violences, de leur entourage et des témoins. Gratuit et anonyme, 24 heures sur 24, 7 jours sur 7.',
    liens: [{ href: 'tel:3919', libelle: 'Appeler le 3919' }],
  },
  {
    numero: '119',
    nom: 'Allô enfance en danger',
    usage: 'Un enfant en danger ou qui risque de l’être, que vous soyez cet enfant ou un adulte inquiet. Gratuit, 24 heures sur 24, 7 jours sur 7 ; l’appel n’apparaît pas sur les factures.',
    liens: [{ href: 'tel:119', libelle: 'Appeler le 119' }],
  },
];

/** A site of the State, what it is for. */
interface Service {
  nom: string;
  href: string;
  adresse: string;
  usage: string;
}

/*
 * The State's online services, each checked on its own or an official page:
 * - Ma Sécurité: masecurite.interieur.gouv.fr (its « Mentions légales »: a site of the ministère de l’Intérieur, DGPN and
 *   DGGN); chat with a police officer or gendarme round the clock, pre-complaint, map of stations (usine-digitale.fr,
 *   cnews.fr, March 2022).
 * - 17Cyber: 17cyber.gouv.fr, by Cybermalveillance.gouv.fr, the police and the gendarmerie (Service-Public, relayed by
 *   henanbihen.fr; generation-nt.com, December 2024).
 * - THESEE: complaint or report online for an internet scam, from Service-Public's « Arnaque sur internet (THESEE,
 *   Pharos, …) » (N31138; DILA, globalsecuritymag.fr, March 2025; loiret.gouv.fr); service-public.fr now answers at
 *   service-public.gouv.fr.
 * - PHAROS: internet-signalement.gouv.fr (Service-Public R17674 « Signaler un contenu internet illégal »; police
 *   nationale, November 2023; moncommissariat.interieur.gouv.fr). Not for emergencies, nor for insults or defamation.
 * - arretonslesviolences.gouv.fr: the Government's site on sexist and sexual violence (numbers, help, reporting).
 */
const SERVICES: Service[] = [
  {
    nom: 'Ma Sécurité',
    href: 'https://www.masecurite.interieur.gouv.fr/',
    adresse: 'masecurite.interieur.gouv.fr',
    usage: 'Échanger par tchat avec un policier ou un gendarme, 24 heures sur 24 ; faire une pré-plainte en ligne ; trouver le commissariat ou la brigade de gendarmerie la plus proche.',
  },
  {
    nom: '17Cyber',
    href: 'https://17cyber.gouv.fr/',
    adresse: '17cyber.gouv.fr',
    usage: 'Piratage de compte, hameçonnage, virus, arnaque en ligne : un diagnostic, des conseils et, si besoin, un tchat avec un policier ou un gendarme (avec Cybermalveillance.gouv.fr).',
  },
  {
    nom: 'Arnaque sur internet : plainte en ligne (THESEE)',
    href: 'https://www.service-public.gouv.fr/particuliers/vosdroits/N31138',
    adresse: 'service-public.gouv.fr',
    usage: 'Faux site de vente, fausse annonce, fausse location, piratage de messagerie, chantage en ligne : porter plainte (avec FranceConnect) ou faire un signalement.',
  },
  {
    nom: 'PHAROS',
    href: 'https://www.internet-signalement.gouv.fr/',
    adresse: 'internet-signalement.gouv.fr',
    usage: 'Un contenu illicite publié sur internet et visible de tous : menaces, incitation à la haine ou à la violence, apologie du terrorisme, atteinte à des mineurs… Ce n’est pas un service d’urgence.',
  },
  {
    nom: 'Arrêtons les violences',
    href: 'https://arretonslesviolences.gouv.fr/',
    adresse: 'arretonslesviolences.gouv.fr',
    usage: 'Le site du Gouvernement pour les victimes et les témoins de violences sexistes et sexuelles : à qui s’adresser, comment se faire aider.',
  },
];

/** The digits (and a leading +) of a number as people write it, for a `tel:` link. */
function numeroAComposer(telephone: string): string {
  return telephone.replace(/[^\d+]/gu, '');
}

function CarteNumero({ numero }: { numero: Numero }) {
  return (
    <Paper component="li" withBorder p="md">
      <Stack gap="xs" h="100%">
        <Title order={3} size="h4">
          {numero.numero} — {numero.nom}
        </Title>
        <Text>{numero.usage}</Text>
        <Group gap="xs" mt="auto">
          {numero.liens.map((lien) =>
            lien.href.startsWith('http') ? (
              <Anchor key={lien.href} href={lien.href}>
                {lien.libelle}
              </Anchor>
            ) : (
              <Button key={lien.href} component="a" href={lien.href} size="lg" className={classes.bouton}>
                {lien.libelle}
              </Button>
            ),
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

function Numeros({ numeros }: { numeros: Numero[] }) {
  return (
    <ul className={classes.liste}>
      {numeros.map((n) => (
        <CarteNumero key={n.numero} numero={n} />
      ))}
    </ul>
  );
}

/** The police municipale's contact, only its configured parts (POLICE_MUNICIPALE_*). */
function PoliceMunicipaleContact({ police }: { police: PoliceMunicipale }) {
  return (
    <section aria-labelledby="police-municipale">
      <Title order={2} id="police-municipale" mb="xs">
        Police municipale
      </Title>
      <Stack gap="xs">
        <Text>Pour la tranquillité du quartier et les nuisances (bruit, circulation), quand ce n’est pas une urgence.</Text>
        {police.adresse && <Text>Adresse : {police.adresse}</Text>}
        {police.horaires && <Text>Horaires : {police.horaires}</Text>}
        {police.telephone && (
          <Button component="a" href={`tel:${numeroAComposer(police.telephone)}`} size="lg" className={classes.bouton}>
            Appeler la police municipale au {police.telephone}
          </Button>
        )}
      </Stack>
    </section>
  );
}

/**
 * « Sécurité » (docs/produit.md « Sécurité »): where to turn, not a form. The site takes no report of an offence:
 * it says so first, then gives the emergency numbers as links a phone dials, the police municipale's contact when
 * the installation has one, and the State's services that do take reports online.
 */
export function SecuritePage() {
  usePageTitle('Sécurité');
  const police = usePoliceMunicipale();
  return (
    <Stack maw={960} gap="lg">
      <Title order={1}>Sécurité</Title>
      <Alert role="note" color="red" variant="light" title="En cas de danger, appelez le 17 ou le 112">
        Quartier Vivant ne reçoit pas les signalements d’infractions : rien de ce que vous écrivez sur ce site n’est transmis à la
        police. En cas d’urgence, appelez les numéros ci-dessous. Pour porter plainte, adressez-vous à un commissariat ou à une
        brigade de gendarmerie, ou utilisez les services en ligne de l’État présentés plus bas.
      </Alert>

      <section aria-labelledby="urgences">
        <Title order={2} id="urgences" mb="xs">
          Numéros d’urgence
        </Title>
        <Text mb="sm">Appels gratuits, depuis un téléphone fixe ou portable, 24 heures sur 24 et 7 jours sur 7.</Text>
        <Numeros numeros={URGENCES} />
        <Text mt="sm">
          Pour un fait qui ne demande pas d’intervention immédiate, adressez-vous au commissariat ou à la brigade de gendarmerie le
          plus proche.
        </Text>
      </section>

      {police.data && <PoliceMunicipaleContact police={police.data} />}
      {police.isError && (
        <Text role="status">Les coordonnées de la police municipale n’ont pas pu être chargées. Rechargez la page dans un instant.</Text>
      )}

      <section aria-labelledby="en-ligne">
        <Title order={2} id="en-ligne" mb="xs">
          Signaler ou porter plainte en ligne
        </Title>
        <Text mb="sm">Des services de l’État, gratuits. Aucun ne remplace le 17 en cas d’urgence.</Text>
        <Stack component="ul" gap="sm" m={0} p={0} style={{ listStyle: 'none' }}>
          {SERVICES.map((s) => (
            <li key={s.href}>
              <Title order={3} size="h4">
                <Anchor href={s.href}>{s.nom}</Anchor>
              </Title>
              <Text>{s.usage}</Text>
              <Text size="sm" c="dimmed">
                {s.adresse}
              </Text>
            </li>
          ))}
        </Stack>
      </section>

      <section aria-labelledby="ecoute">
        <Title order={2} id="ecoute" mb="xs">
          Violences : être écouté et aidé
        </Title>
        <Numeros numeros={ECOUTE} />
      </section>
    </Stack>
  );
}
