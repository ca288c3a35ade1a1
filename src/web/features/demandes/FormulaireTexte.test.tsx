// @vitest-environment jsdom
import { useMutation } from '@tanstack/react-query';
import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/api.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { FormulaireTexte, type TexteEtPieces } from './FormulaireTexte.js';

// /parametres answers nothing (404): the form keeps its default limits.
recordFetch();

/** A message form whose sending the test decides. */
function Formulaire({ envoyer }: { envoyer: (v: TexteEtPieces) => Promise<unknown> }) {
  const envoi = useMutation({ mutationFn: envoyer });
  return <FormulaireTexte envoi={envoi} label="Votre message" max={2000} bouton="Envoyer le message" echec="Le message n’a pas pu être envoyé." piecesMax={2} />;
}

const pdf = (name: string) => new File(['%PDF-1.4'], name, { type: 'application/pdf' });
const input = () => document.querySelector<HTMLInputElement>('input[type=file]')!;

describe('a message’s attachments: where the focus goes', () => {
  it('after « Retirer », goes to the next file, else to « Joindre des fichiers », enabled again once under the limit', async () => {
    const user = userEvent.setup();
    renderWithProviders(<Formulaire envoyer={async () => ({})} />);
    await user.upload(input(), [pdf('a.pdf'), pdf('b.pdf')]);
    // Two files, the most a message takes: « Joindre des fichiers » is disabled.
    expect(screen.getByRole('button', { name: 'Joindre des fichiers' })).toBeDisabled();

    await user.click(screen.getByRole('button', { name: 'Retirer a.pdf' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Retirer b.pdf' })).toHaveFocus());
    await user.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Joindre des fichiers' })).toHaveFocus());
    expect(screen.queryByRole('list', { name: 'Fichiers joints' })).toBeNull();
  });

  it('says the limit as the server does when too many files are joined', async () => {
    const user = userEvent.setup();
    renderWithProviders(<Formulaire envoyer={async () => ({})} />);
    await user.upload(input(), [pdf('a.pdf'), pdf('b.pdf'), pdf('c.pdf')]);
    expect(screen.getByRole('alert')).toHaveTextContent('Vous pouvez envoyer au plus 2 fichiers à la fois. Seuls les 2 premiers sont joints.');
    expect(screen.queryByRole('button', { name: 'Retirer c.pdf' })).toBeNull();
  });

  it('after a refusal, goes to the field, which the server’s reason describes', async () => {
    const user = userEvent.setup();
    const raison = 'Le fichier « a.pdf » dépasse la taille maximale de 10 Mo.';
    renderWithProviders(
      <Formulaire
        envoyer={async () => {
          throw new ApiError(413, 'FILE_TOO_LARGE', raison);
        }}
      />,
    );
    await user.type(screen.getByLabelText('Votre message'), 'Bonjour');
    await user.click(screen.getByRole('button', { name: 'Envoyer le message' }));
    const champ = screen.getByLabelText('Votre message');
    await waitFor(() => expect(champ).toHaveFocus());
    expect(champ).toHaveAccessibleDescription(expect.stringContaining(raison));
  });
});
