// @vitest-environment jsdom
import { DEFAULT_THEME } from '@mantine/core';
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { PDFDocument } from 'pdf-lib';
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { DemandeComplete } from '../../../domain/demande.js';
import { CATEGORIES, type Categorie, type DocumentInfo, type DocumentsParCategorie } from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { useDemande } from './api.js';
import { REFUS_FICHIER } from '../../../domain/documents.js';
import { CorrectionDemandeur } from './Corrections.js';
import { DocumentPreview, UploadBlocks } from './Documents.js';

const NUMERO = '013abc12345';
const MO = 1024 * 1024;

const sansDocuments = (): DocumentsParCategorie => ({ livret: [], identity: [], tax: [], salary: [], other: [] });

function document(id: string, name: string, type: DocumentInfo['type'] = 'application/pdf'): DocumentInfo {
  return { id, fileUrl: `/app/api/logement/${NUMERO}/documents/${id}`, name, type, size: 2048, uploadedAt: '2026-01-05T10:00:00.000Z', avis: null, motifAvis: null };
}

function demande(documents: DocumentsParCategorie = sansDocuments()): DemandeComplete {
  return {
    acces: 'complet',
    id: 'd1',
    numeroUnique: NUMERO,
    prenom: 'Hélène',
    nom: 'Martin',
    sexe: 'femme',
    dateDeNaissance: '1990-03-15',
    email: 'helene@example.org',
    numeroDeTelephone: '',
    adresse: '12 Avenue Marcel-Pagnol',
    adresseComplement: '',
    codePostal: '13090',
    ville: 'Aix-en-Provence',
    salaireBrut: 1850.5,
    salaireAvisImpot1: null,
    salaireAvisImpot2: null,
    situationFamiliale: 'marie',
    nombreDEnfants: 0,
    logementActuel: 'appartement',
    typeDeLogementActuel: 't2',
    quartierActuel: 'jas de bouffan',
    bailleurActuel: 'pah',
    typeDeLogementSouhaite: 't3',
    quartierSouhaite: ['encagnane'],
    dateDEnregistrement: '2026-01-01T00:00:00.000Z',
    statutDeLaDemande: 'En attente des documents',
    motivations: 'Logement trop petit',
    commentaires: '',
    documents,
    correction: null,
  };
}

/** The server as fetch sees it: answers by "METHOD url", 404 otherwise (so /parametres leaves the defaults). */
const { answers } = recordFetch();
/** What the upload (XMLHttpRequest) answers. */
let upload: { status: number; body: unknown };

class FakeXhr {
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  status = 0;
  responseText = '';
  open() {}
  setRequestHeader() {}
  send() {
    setTimeout(() => {
      this.status = upload.status;
      this.responseText = JSON.stringify(upload.body);
      this.onload?.();
    }, 0);
  }
}

beforeEach(() => {
  upload = { status: 201, body: { data: { documents: sansDocuments() } } };
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
});

const pdf = (name: string, size = 1000, type = 'application/pdf') => {
  const file = new File(['%PDF-1.4'], name, { type });
  Object.defineProperty(file, 'size', { value: size });
  return file;
};

const libelle = (categorie: Categorie) => CATEGORIES.find((c) => c.value === categorie)!.label;
const bloc = (nom: string) => screen.getByRole('region', { name: nom });

async function choisir(user: ReturnType<typeof userEvent.setup>, nomDuBloc: string, files: File[]) {
  const input = bloc(nomDuBloc).querySelector<HTMLInputElement>('input[type=file]')!;
  await user.upload(input, files);
}

describe('« Vos documents »: where the focus goes', () => {
  it('after « Retirer », goes to the next chosen file, then to the block’s « Ajouter des fichiers »', async () => {
    const user = userEvent.setup({ applyAccept: false });
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    await choisir(user, 'Livret de famille', [pdf('a.pdf'), pdf('b.pdf'), pdf('c.pdf')]);
    const livret = bloc('Livret de famille');

    await user.click(within(livret).getByRole('button', { name: 'Retirer a.pdf' }));
    await waitFor(() => expect(within(livret).getByRole('button', { name: 'Retirer b.pdf' })).toHaveFocus());
    expect(within(livret).queryByText(/^a\.pdf/u)).toBeNull();

    // The last one: no file after it, the block's own button.
    await user.click(within(livret).getByRole('button', { name: 'Retirer c.pdf' }));
    await waitFor(() => expect(within(livret).getByRole('button', { name: 'Ajouter des fichiers' })).toHaveFocus());
    await user.keyboard('{Shift>}{Tab}{/Shift}');
    expect(within(livret).getByRole('button', { name: 'Retirer b.pdf' })).toHaveFocus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(within(livret).getByRole('button', { name: 'Ajouter des fichiers' })).toHaveFocus());
    expect(screen.queryByText('À envoyer :')).toBeNull();
  });

  it('holds the send at the bottom of the screen while chosen files wait, not before', async () => {
    const user = userEvent.setup({ applyAccept: false });
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    const barre = () => screen.getByRole('button', { name: /^Envoyer (le fichier|les \d+ fichiers)$/u }).parentElement!;
    expect(barre().style.position).toBe('');
    await choisir(user, 'Avis d’imposition', [pdf('avis.pdf')]);
    expect(barre().style.position).toBe('sticky');
    expect(barre().style.bottom).toBe('0px');
  });

  it('asks no more documents of a closed request: the sent ones listed, no « Ajouter des fichiers », the reason said', async () => {
    const close = { ...demande({ ...sansDocuments(), identity: [document('d1', 'cni.pdf')] }), statutDeLaDemande: 'Refusé' as const };
    renderWithProviders(<UploadBlocks demande={close} supprimable />);
    expect(await screen.findByText('Cette demande est close (Refusé) : elle ne reçoit plus de documents.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Ajouter des fichiers' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Envoyer/u })).toBeNull();
    expect(within(bloc('Pièce d’identité')).getByText(/cni\.pdf/u)).toBeInTheDocument();
  });

  it('after sending, goes to the announcement of the result', async () => {
    const user = userEvent.setup({ applyAccept: false });
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    await choisir(user, 'Livret de famille', [pdf('livret.pdf')]);
    await user.click(screen.getByRole('button', { name: 'Envoyer le fichier' }));
    const annonce = (await screen.findByText(MESSAGES.televerse)).closest<HTMLElement>('[role="status"]')!;
    await waitFor(() => expect(annonce).toHaveFocus());
    expect(annonce).toHaveAttribute('tabindex', '-1');
  });

  it('checks the request’s quota before sending anything: the server’s sentence, no upload', async () => {
    const user = userEvent.setup({ applyAccept: false });
    answers['GET /app/api/parametres'] = {
      status: 200,
      body: { data: { uploadMaxBytes: 10 * MO, maxFichiersParEnvoi: 10, quotaDocuments: { fichiers: 3, octets: 150 * MO }, typesAcceptes: {}, google: false } },
    };
    const envoyes = vi.fn();
    vi.stubGlobal('XMLHttpRequest', class extends FakeXhr { override send() { envoyes(); super.send(); } });
    const deux = { ...sansDocuments(), tax: [document('t1', 'avis.pdf'), document('t2', 'avis-2.pdf')] };
    renderWithProviders(<UploadBlocks demande={demande(deux)} supprimable />);
    await screen.findByText(/3 documents et 150 Mo au plus par demande/u);
    await choisir(user, 'Livret de famille', [pdf('a.pdf'), pdf('b.pdf')]);
    await user.click(screen.getByRole('button', { name: 'Envoyer les 2 fichiers' }));
    expect(await screen.findByText(REFUS_FICHIER.quotaFichiers(3, 2))).toBeInTheDocument();
    expect(envoyes).not.toHaveBeenCalled();
  });

  it('after a refused send, goes to the error, which gives the server’s reason', async () => {
    const user = userEvent.setup({ applyAccept: false });
    const raison = 'Ces fichiers dépasseraient les 50 Mo de documents permis par demande : il reste 2 Mo pour cette demande.';
    upload = { status: 413, body: { error: { code: 'QUOTA_OCTETS', message: raison } } };
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    await choisir(user, 'Livret de famille', [pdf('livret.pdf')]);
    await user.click(screen.getByRole('button', { name: 'Envoyer le fichier' }));
    const erreur = await screen.findByRole('alert');
    expect(erreur).toHaveTextContent('Les documents n’ont pas été envoyés');
    expect(erreur).toHaveTextContent(raison);
    await waitFor(() => expect(erreur).toHaveFocus());
    // The chosen file is still there, to send again.
    expect(within(bloc('Livret de famille')).getByRole('button', { name: 'Retirer livret.pdf' })).toBeInTheDocument();
  });

  it('after deleting a sent document, goes to the next document, else to the block’s title', async () => {
    let documents: DocumentsParCategorie = { ...sansDocuments(), tax: [document('t1', 'avis-2023.pdf'), document('t2', 'avis-2024.pdf')] };
    answers[`GET /app/api/logement/${NUMERO}`] = () => ({ status: 200, body: { data: demande(documents) } });
    for (const id of ['t1', 't2']) {
      answers[`DELETE /app/api/logement/${NUMERO}/documents/${id}`] = () => {
        documents = { ...documents, tax: documents.tax.filter((d) => d.id !== id) };
        return { status: 200, body: { data: {} } };
      };
    }
    function Page() {
      const { data } = useDemande(NUMERO);
      return data ? <UploadBlocks demande={data as DemandeComplete} supprimable /> : null;
    }
    const user = userEvent.setup();
    renderWithProviders(<Page />);
    const tax = await screen.findByRole('region', { name: libelle('tax') });

    await user.click(within(tax).getByRole('button', { name: 'Supprimer avis-2023.pdf' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Supprimer ce document ?' })).getByRole('button', { name: 'Supprimer' }));
    await within(tax).findByText('« avis-2023.pdf » a été supprimé.');
    await waitFor(() => expect(within(tax).getByRole('button', { name: 'Voir avis-2024.pdf' })).toHaveFocus());
    // Mantine hands the focus back to the dialog's opener 10 ms after closing, unless it has moved: it has.
    await new Promise((r) => setTimeout(r, 50));
    expect(within(tax).getByRole('button', { name: 'Voir avis-2024.pdf' })).toHaveFocus();

    await user.click(within(tax).getByRole('button', { name: 'Supprimer avis-2024.pdf' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Supprimer ce document ?' })).getByRole('button', { name: 'Supprimer' }));
    await within(tax).findByText('« avis-2024.pdf » a été supprimé.');
    await waitFor(() => expect(within(tax).getByRole('heading', { level: 3 })).toHaveFocus());
    await within(tax).findByText('Aucun document envoyé.');
    expect(within(tax).getByRole('heading', { level: 3 })).toHaveFocus();
  });
});

describe('« Vos documents » at 375 px', () => {
  it('puts a document’s buttons on their own wrapping line, below its name, named with the whole name', () => {
    const long = 'avis-d-imposition-2024-revenus-2023-declaration-commune-helene-et-karim-martin-version-signee.pdf';
    renderWithProviders(<UploadBlocks demande={demande({ ...sansDocuments(), tax: [document('t1', long)] })} supprimable revue />);
    const ligne = screen.getByText(long).closest('li')!;
    const voir = within(ligne).getByRole('button', { name: `Voir ${long}` });
    const boutons = voir.parentElement!;
    // The buttons' row wraps and holds none of the name.
    expect(boutons.style.getPropertyValue('--group-wrap')).toBe('wrap');
    expect(boutons).not.toHaveTextContent(long);
    expect(within(boutons).getAllByRole('button').map((b) => b.textContent)).toEqual(['Voir', 'Accepter', 'À remplacer', 'Supprimer']);
    expect(within(boutons).getByRole('button', { name: `Supprimer ${long}` })).toBeInTheDocument();
  });

  it('writes the review buttons’ labels in a colour other than their background (« Accepter » was an empty green block)', () => {
    renderWithProviders(<UploadBlocks demande={demande({ ...sansDocuments(), tax: [document('t1', 'avis.pdf')] })} revue />);
    for (const nom of ['Accepter avis.pdf', 'Marquer avis.pdf à remplacer']) {
      const style = screen.getByRole('button', { name: nom }).style;
      // A 10 % tint behind the label, in the colour of the label.
      expect(style.getPropertyValue('--button-bg'), nom).toMatch(/^rgba\((\d+, \d+, \d+), 0\.1\)$/u);
      const [, rgb] = /^rgba\((\d+, \d+, \d+), 0\.1\)$/u.exec(style.getPropertyValue('--button-bg'))!;
      const hex = style.getPropertyValue('--button-color');
      expect(rgb, nom).toBe([1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', '));
    }
  });

  it('on a closed request, asks no manager to mark a document to replace (it takes no more): accepting stays', () => {
    const close = { ...demande({ ...sansDocuments(), tax: [document('t1', 'avis.pdf')] }), statutDeLaDemande: 'Attribué' as const };
    renderWithProviders(<UploadBlocks demande={close} revue />);
    const ligne = screen.getByText('avis.pdf').closest('li')!;
    expect(within(ligne).getByRole('button', { name: 'Accepter avis.pdf' })).toBeInTheDocument();
    expect(within(ligne).queryByRole('button', { name: 'Marquer avis.pdf à remplacer' })).toBeNull();
  });
});

/** WCAG's contrast ratio of two #rgb or #rrggbb colours. */
function contraste(a: string, b: string): number {
  const luminance = (court: string) => {
    const hex = court.length === 4 ? `#${[...court.slice(1)].map((c) => c + c).join('')}` : court;
    const [r, g, v] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * v!;
  };
  const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m);
  return (x! + 0.05) / (y! + 0.05);
}

describe('« Ajouter des fichiers »', () => {
  // The app's theme keeps Mantine's colours (src/web/app/theme.ts changes only the primary shade).
  it('keeps 4.5:1 on hover: it fills with the primary shade, white text', () => {
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    const bouton = within(bloc('Livret de famille')).getByRole('button', { name: 'Ajouter des fichiers' });
    const couleur = (variable: string) => {
      const [, nom, nuance] = /^var\(--mantine-color-([a-z]+)-(\d)\)$/u.exec(bouton.style.getPropertyValue(variable).trim()) ?? [];
      return nom === 'white' || nuance === undefined ? DEFAULT_THEME.white : DEFAULT_THEME.colors[nom!]![Number(nuance)]!;
    };
    expect(bouton.style.getPropertyValue('--button-hover')).toBe('var(--mantine-color-blue-8)');
    expect(contraste(couleur('--button-hover-color'), couleur('--button-hover'))).toBeGreaterThanOrEqual(4.5);
  });
});

describe('the preview of a document', () => {
  it('is named by the file’s name, never by its local blob: address', async () => {
    const nom = 'Avis d’imposition 2024.pdf';
    const doc = document('t1', nom);
    answers[`GET ${doc.fileUrl}`] = () => new Response('%PDF-1.4', { status: 200, headers: { 'content-type': 'application/pdf' } });
    const creees: Blob[] = [];
    // jsdom has no URL.createObjectURL: a browser's, with its random id.
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => {
        creees.push(blob);
        return 'blob:http://localhost:3000/5f0c6a2e-4b8f-4f7e-9d51-0c2b9e4a1f3d';
      },
      revokeObjectURL: () => {},
    });
    onTestFinished(() => {
      delete (URL as Partial<typeof URL>).createObjectURL;
      delete (URL as Partial<typeof URL>).revokeObjectURL;
    });
    renderWithProviders(<DocumentPreview numeroUnique={NUMERO} document={doc} onClose={() => {}} />);
    const dialogue = await screen.findByRole('dialog', { name: nom });
    const lien = await within(dialogue).findByRole('link', { name: `Télécharger « ${nom} »` });
    expect(lien).toHaveAttribute('download', nom);
    const apercu = dialogue.querySelector('object')!;
    expect(apercu).toHaveAttribute('title', nom);
    expect(apercu).toHaveAttribute('aria-label', nom);
    expect((creees[0] as File).name).toBe(nom);
    for (const element of [dialogue, ...dialogue.querySelectorAll('*')]) {
      for (const attribut of ['title', 'aria-label', 'download']) expect(element.getAttribute(attribut) ?? '').not.toMatch(/blob:/u);
    }
  });
});

describe('the preview of a PDF', () => {
  it('is a copy titled with the file’s name, for the viewer’s toolbar; the download is the file as sent', async () => {
    const nom = 'Avis d’imposition 2024.pdf';
    const doc = document('t2', nom);
    const pdf = await PDFDocument.create();
    pdf.addPage();
    const original = new Uint8Array(await pdf.save());
    // The server's answer, its body a Blob of this window (jsdom builds Files from its own Blobs only).
    answers[`GET ${doc.fileUrl}`] = () => Object.assign(new Response(null, { status: 200 }), { blob: async () => new Blob([original], { type: 'application/pdf' }) });
    const creees = new Map<string, Blob>();
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => {
        const url = `blob:http://localhost:3000/${creees.size + 1}`;
        creees.set(url, blob);
        return url;
      },
      revokeObjectURL: () => {},
    });
    onTestFinished(() => {
      delete (URL as Partial<typeof URL>).createObjectURL;
      delete (URL as Partial<typeof URL>).revokeObjectURL;
    });
    renderWithProviders(<DocumentPreview numeroUnique={NUMERO} document={doc} onClose={() => {}} />);
    const dialogue = await screen.findByRole('dialog', { name: nom });
    const lien = await within(dialogue).findByRole('link', { name: `Télécharger « ${nom} »` });
    const octets = async (url: string | null) => new Uint8Array(await creees.get(url ?? '')!.arrayBuffer());
    // Downloaded: the very bytes sent, untitled.
    expect(await octets(lien.getAttribute('href'))).toEqual(original);
    expect((await PDFDocument.load(original)).getTitle()).toBeUndefined();
    // Shown: the same bytes, then an update that gives the PDF the file's name as its title.
    const apercu = await octets(dialogue.querySelector('object')!.getAttribute('data'));
    expect(apercu.subarray(0, original.length)).toEqual(original);
    expect((await PDFDocument.load(apercu)).getTitle()).toBe(nom);
  });
});

describe('why a file is refused: one sentence, whichever side refuses', () => {
  // The server's sentences (src/server/features/demandes/upload.ts), the apostrophe typographic.
  const REFUS = {
    type: 'Le fichier « notes.txt » n’est pas accepté : seuls les PDF, JPEG et PNG le sont.',
    vide: 'Le fichier « vide.pdf » est vide.',
    taille: 'Le fichier « gros.pdf » dépasse la taille maximale de 10 Mo.',
    contenu: 'Le contenu du fichier « photo.pdf » ne correspond pas à son extension .pdf.',
  };

  it('says the server’s sentence when this page refuses a file before sending', async () => {
    const user = userEvent.setup({ applyAccept: false });
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    const cas: [File, string][] = [
      [new File(['x'], 'notes.txt', { type: 'text/plain' }), REFUS.type],
      [pdf('vide.pdf', 0), REFUS.vide],
      [pdf('gros.pdf', 10 * MO + 1), REFUS.taille],
      [pdf('photo.pdf', 1000, 'image/png'), REFUS.contenu],
    ];
    for (const [file, phrase] of cas) {
      await choisir(user, 'Autres documents', [file]);
      expect(within(bloc('Autres documents')).getByRole('alert')).toHaveTextContent(phrase);
    }
    expect(screen.queryByText('À envoyer :')).toBeNull();
  });

  it('words each refusal as the server does, and the count per send too', () => {
    expect(REFUS_FICHIER.type('notes.txt')).toBe(REFUS.type);
    expect(REFUS_FICHIER.vide('vide.pdf')).toBe(REFUS.vide);
    expect(REFUS_FICHIER.taille('gros.pdf', 10 * MO)).toBe(REFUS.taille);
    expect(REFUS_FICHIER.contenu('photo.pdf')).toBe(REFUS.contenu);
    expect(REFUS_FICHIER.nombre(20)).toBe('Vous pouvez envoyer au plus 20 fichiers à la fois.');
  });

  it('shows the server’s refusal of the same file with the same sentence', async () => {
    const user = userEvent.setup({ applyAccept: false });
    // Under this page's limit, over the server's (its limit changed since the page loaded).
    upload = { status: 413, body: { error: { code: 'FILE_TOO_LARGE', message: REFUS.taille } } };
    renderWithProviders(<UploadBlocks demande={demande()} supprimable />);
    await choisir(user, 'Autres documents', [pdf('gros.pdf', 9 * MO)]);
    await user.click(screen.getByRole('button', { name: 'Envoyer le fichier' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(REFUS.taille);
  });
});

describe('a manager withdraws a document’s review', () => {
  it('sends « avis: null », then shows the document to check again, says so and keeps the focus on the document', async () => {
    let documents: DocumentsParCategorie = {
      ...sansDocuments(),
      tax: [
        { ...document('t1', 'avis-2023.pdf'), avis: 'accepte' },
        { ...document('t2', 'avis-2024.pdf'), avis: 'a-remplacer', motifAvis: 'Page 2 manquante' },
      ],
    };
    const envois: { id: string; body: unknown }[] = [];
    answers[`GET /app/api/logement/${NUMERO}`] = () => ({ status: 200, body: { data: demande(documents) } });
    for (const id of ['t1', 't2']) {
      answers[`PUT /app/api/logement/${NUMERO}/documents/${id}/avis`] = ({ body }) => {
        envois.push({ id, body });
        documents = { ...documents, tax: documents.tax.map((d) => (d.id === id ? { ...d, avis: null, motifAvis: null } : d)) };
        return { status: 200, body: { data: documents.tax.find((d) => d.id === id) } };
      };
    }
    function Page() {
      const { data } = useDemande(NUMERO);
      return data ? <UploadBlocks demande={data as DemandeComplete} revue /> : null;
    }
    const user = userEvent.setup();
    renderWithProviders(<Page />);
    const tax = await screen.findByRole('region', { name: libelle('tax') });
    const ligne = (nom: string) => within(tax).getByText(nom).closest('li')!;

    // Accepted: its review can be withdrawn, not given again.
    expect(within(ligne('avis-2023.pdf')).getByText('Accepté')).toBeInTheDocument();
    expect(within(ligne('avis-2023.pdf')).queryByRole('button', { name: 'Accepter avis-2023.pdf' })).toBeNull();
    await user.click(within(ligne('avis-2023.pdf')).getByRole('button', { name: 'Retirer l’avis sur avis-2023.pdf' }));
    await within(tax).findByText('L’avis sur « avis-2023.pdf » a été retiré : le document est à vérifier.');
    expect(envois).toEqual([{ id: 't1', body: { avis: null } }]);
    const premier = ligne('avis-2023.pdf');
    expect(within(premier).queryByText('Accepté')).toBeNull();
    expect(within(premier).queryByRole('button', { name: /^Retirer l’avis/u })).toBeNull();
    expect(within(premier).getByRole('button', { name: 'Accepter avis-2023.pdf' })).toBeInTheDocument();
    expect(within(premier).getByRole('button', { name: 'Marquer avis-2023.pdf à remplacer' })).toBeInTheDocument();
    expect(within(premier).getByRole('button', { name: 'Voir avis-2023.pdf' })).toHaveFocus();

    // To replace: its badge and its reason go.
    expect(within(ligne('avis-2024.pdf')).getByText('À remplacer', { selector: '.mantine-Badge-label' })).toBeInTheDocument();
    expect(within(ligne('avis-2024.pdf')).getByText('Motif : Page 2 manquante')).toBeInTheDocument();
    await user.click(within(ligne('avis-2024.pdf')).getByRole('button', { name: 'Retirer l’avis sur avis-2024.pdf' }));
    await within(tax).findByText('L’avis sur « avis-2024.pdf » a été retiré : le document est à vérifier.');
    expect(envois.at(-1)).toEqual({ id: 't2', body: { avis: null } });
    expect(within(ligne('avis-2024.pdf')).queryByText('À remplacer', { selector: '.mantine-Badge-label' })).toBeNull();
    expect(within(ligne('avis-2024.pdf')).queryByText(/^Motif :/u)).toBeNull();
    expect(within(ligne('avis-2024.pdf')).getByRole('button', { name: 'Voir avis-2024.pdf' })).toHaveFocus();
  });

  it('is not offered without a review, nor to the requester', () => {
    renderWithProviders(<UploadBlocks demande={demande({ ...sansDocuments(), tax: [document('t1', 'a.pdf'), { ...document('t2', 'b.pdf'), avis: 'accepte' }] })} supprimable />);
    expect(screen.queryByRole('button', { name: /^Retirer l’avis/u })).toBeNull();
  });
});

describe('« J’ai fait les corrections »', () => {
  it('gives the focus to « Corrections envoyées », which replaces the button pressed', async () => {
    const demandee = { etat: 'demandee' as const, motif: 'Avis illisible', demandeeLe: '2026-02-01T10:00:00.000Z', faiteLe: null };
    let correction: DemandeComplete['correction'] = demandee;
    answers[`GET /app/api/logement/${NUMERO}`] = () => ({ status: 200, body: { data: { ...demande(), correction } } });
    answers[`POST /app/api/logement/${NUMERO}/corrections/faites`] = () => {
      correction = { ...demandee, etat: 'faite', faiteLe: '2026-02-02T10:00:00.000Z' };
      return { status: 200, body: { data: correction } };
    };
    function Harnais() {
      const { data } = useDemande(NUMERO);
      return data?.acces === 'complet' ? <CorrectionDemandeur demande={data} /> : null;
    }
    renderWithProviders(<Harnais />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'J’ai fait les corrections' }));
    const annonce = (await screen.findByText('Corrections envoyées')).closest<HTMLElement>('[role="status"]')!;
    await waitFor(() => expect(annonce).toHaveFocus());
  });

  it('is gone once the request is closed: a refused request waits for no correction (the server refuses the answer)', () => {
    const demandee = { etat: 'demandee' as const, motif: 'Avis illisible', demandeeLe: '2026-02-01T10:00:00.000Z', faiteLe: null };
    const { container } = renderWithProviders(<CorrectionDemandeur demande={{ ...demande(), statutDeLaDemande: 'Refusé', correction: demandee }} />);
    expect(screen.queryByText('La mairie annexe vous demande des corrections')).toBeNull();
    expect(screen.queryByRole('button', { name: 'J’ai fait les corrections' })).toBeNull();
    expect(container.textContent).not.toContain('Avis illisible');
  });
});
