import { describe, expect, it } from 'vitest';

/**
 * Each module of the domain loads. Always true of the code as written: this file is here for mutation
 * testing (docs/mutation.md). A mutant that breaks a module while it loads (a schema helper that
 * returns nothing, a table that cannot be built) makes every test file importing that module fail to
 * load, which StrykerJS's Vitest runner does not count as a failed test. Loading the module inside a
 * test turns such a mutant into a failed test.
 */
describe('domain modules', () => {
  it('load the statuses', async () => {
    const { STATUTS, statutRang } = await import('./statut.js');
    expect(STATUTS).toHaveLength(8);
    expect(statutRang('Refusé')).toBe(90);
  });

  it('load the schemas of a housing request', async () => {
    const { demandeSaisieSchema, listeQuerySchema, changementStatutSchema } = await import('./demande.js');
    expect(demandeSaisieSchema.safeParse({}).success).toBe(false);
    expect(listeQuerySchema.safeParse({}).success).toBe(true);
    expect(changementStatutSchema.safeParse({}).success).toBe(false);
  });

  it('load the schemas of accounts', async () => {
    const { inscriptionSchema, isGestionnaire } = await import('./compte.js');
    expect(inscriptionSchema.safeParse({}).success).toBe(false);
    expect(isGestionnaire('admin')).toBe(true);
  });

  it('load the search and page schemas', async () => {
    const { rechercheSchema, numeroDePageSchema } = await import('./pagination.js');
    expect(rechercheSchema.parse(undefined)).toBe('');
    expect(numeroDePageSchema.parse(undefined)).toBe(1);
  });

  it('load the normalisation rules', async () => {
    const { normaliseNumeroUnique } = await import('./normalise.js');
    expect(normaliseNumeroUnique(' A B ')).toBe('ab');
  });
});
