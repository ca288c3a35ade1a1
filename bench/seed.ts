// Generated housing requests for the benches: varied French names (accents included), statuses,
// dates over two years. Written straight into the database in batches of 500, one transaction each.
import crypto from 'node:crypto';
import { ajouterMois, VALIDITE_MOIS_DEFAUT } from '../src/domain/cycleDeVie.js';
import { texteDeRecherche, type DemandeCreation } from '../src/domain/demande.js';
import { foldForSearch } from '../src/domain/normalise.js';
import { STATUTS, statutRang } from '../src/domain/statut.js';
import type { Db } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { hashAccessKey, newAccessKey } from '../src/server/features/demandes/access.js';

const PRENOMS = ['Hélène', 'Léa', 'Chloé', 'Inès', 'Zoé', 'Jérôme', 'Mathéo', 'Noé', 'Aïcha', 'Amina', 'Yanis', 'Lucas', 'Emma', 'Karim', 'Sofia', 'Théo', 'Maëlle', 'François', 'Cécile', 'Loïc'];
const NOMS = ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefèvre', 'Michel', 'García', 'Benali', 'Nguyen', 'Roux', 'Fournier', 'Girard'];
const TYPES = ['studio', 't2', 't3', 't4', 't5', 't6'] as const;

export function generatedRequest(n: number): NewDemande {
  const prenom = PRENOMS[n % PRENOMS.length]!;
  const nom = NOMS[Math.floor(n / PRENOMS.length) % NOMS.length]!;
  const at = new Date(Date.UTC(2024, 10, 1) + n * 7 * 60_000).toISOString();
  const statut = STATUTS[(n * 7) % STATUTS.length]!;
  const creation: DemandeCreation = {
    numeroUnique: `013${String(n).padStart(9, '0')}`,
    prenom,
    nom,
    sexe: n % 2 === 0 ? 'femme' : 'homme',
    dateDeNaissance: null,
    email: `${prenom}.${nom}.${n}@example.org`.toLowerCase(),
    numeroDeTelephone: `06${String(n).padStart(8, '0')}`,
    adresse: `${(n % 120) + 1} Avenue Marcel-Pagnol`,
    adresseComplement: '',
    codePostal: '13090',
    ville: 'Aix-en-Provence',
    salaireBrut: 1200 + (n % 2000),
    salaireAvisImpot1: null,
    salaireAvisImpot2: null,
    situationFamiliale: 'celibataire',
    nombreDEnfants: n % 5,
    logementActuel: 'appartement',
    typeDeLogementActuel: TYPES[n % 6]!,
    quartierActuel: 'jas de bouffan',
    bailleurActuel: 'pah',
    typeDeLogementSouhaite: TYPES[(n + 1) % 6]!,
    quartierSouhaite: ['jasDeBouffan'],
    motivations: 'Logement trop petit pour la famille.',
    commentaires: '',
  };
  return {
    ...creation,
    quartierSouhaite: JSON.stringify(creation.quartierSouhaite),
    id: crypto.randomUUID(),
    accessKeyHash: SHARED_HASH,
    dateDEnregistrement: at,
    statutDeLaDemande: statut,
    updatedAt: at,
    ownerUserId: null,
    searchText: texteDeRecherche({ ...creation, dateDEnregistrement: at, statutDeLaDemande: statut }),
    nomTri: foldForSearch(nom),
    prenomTri: foldForSearch(prenom),
    statutRang: statutRang(statut),
    valideJusqua: ajouterMois(at, VALIDITE_MOIS_DEFAUT),
  };
}

const SHARED_HASH = hashAccessKey(newAccessKey());

export async function seedRequests(db: Db, count: number): Promise<number> {
  const started = Date.now();
  for (let i = 0; i < count; i += 500) {
    const rows = Array.from({ length: Math.min(500, count - i) }, (_, j) => generatedRequest(i + j));
    await db.transaction().execute((trx) => trx.insertInto('housingRequests').values(rows).execute());
  }
  return (Date.now() - started) / 1000;
}
