import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { EntreeJournal, ExportJournalise, Gestionnaire, Note, SuiviVue } from '../../../domain/instruction.js';
import { apiFetch, sendJson } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

const base = (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}`;

export function useNotes(numeroUnique: string) {
  return useQuery({ queryKey: cles.notes(numeroUnique), queryFn: async () => (await apiFetch<{ data: Note[] }>(`${base(numeroUnique)}/notes`)).data });
}

export function useSuivi(numeroUnique: string) {
  return useQuery({ queryKey: cles.suivi(numeroUnique), queryFn: async () => (await apiFetch<{ data: SuiviVue }>(`${base(numeroUnique)}/suivi`)).data });
}

export function useJournal(numeroUnique: string) {
  return useQuery({ queryKey: cles.journal(numeroUnique), queryFn: async () => (await apiFetch<{ data: EntreeJournal[] }>(`${base(numeroUnique)}/journal`)).data });
}

/** The managers and admins a request may be given to, by name (read when `enabled`: the choice is open). */
export function useGestionnaires(enabled = true) {
  return useQuery({
    queryKey: cles.gestionnaires,
    queryFn: async () => (await apiFetch<{ data: Gestionnaire[] }>('/gestionnaires')).data,
    enabled,
    staleTime: 60_000,
  });
}

/** The key of the latest exports: under `cles.demandes`, dropped at sign-out with the rest of the requests. */
const cleDerniersExports = [...cles.demandes, 'exports'] as const;

/** The list's latest exports (who, when, format, columns), read again each time the export dialog opens. */
export function useDerniersExports() {
  return useQuery({
    queryKey: cleDerniersExports,
    queryFn: async () => (await apiFetch<{ data: ExportJournalise[] }>('/exports/journal')).data,
    refetchOnMount: 'always',
  });
}

/** Each action shows at once in the journal, and « Suivie par » in the lists. */
export function useAjoutNote(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ texte }: { texte: string; fichiers?: File[] }) => (await sendJson<{ data: Note }>(`${base(numeroUnique)}/notes`, { texte })).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.instruction(numeroUnique) }),
  });
}

export function useChangementSuivi(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (suivre: boolean) => (await sendJson<{ data: SuiviVue }>(`${base(numeroUnique)}/suivi`, { suivre }, 'PUT')).data,
    onSuccess: async (suivi) => {
      queryClient.setQueryData(cles.suivi(numeroUnique), suivi);
      await Promise.all([queryClient.invalidateQueries({ queryKey: cles.journal(numeroUnique) }), queryClient.invalidateQueries({ queryKey: cles.listes })]);
    },
  });
}

/** « Confier à… » a colleague: « Suivie par » names them at once, the journal and the lists are read again. */
export function useConfier(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (gestionnaireId: string) => (await sendJson<{ data: SuiviVue }>(`${base(numeroUnique)}/confier`, { gestionnaireId })).data,
    onSuccess: async (suivi) => {
      queryClient.setQueryData(cles.suivi(numeroUnique), suivi);
      await Promise.all([queryClient.invalidateQueries({ queryKey: cles.journal(numeroUnique) }), queryClient.invalidateQueries({ queryKey: cles.listes })]);
    },
  });
}
