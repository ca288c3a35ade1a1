import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  annulationStatutSchema,
  changementStatutSchema,
  compteursSchema,
  demandeCompleteSchema,
  exportQuerySchema,
  listeDemandesSchema,
  listeQuerySchema,
  statutChangeSchema,
  statutRestaureSchema,
} from '../../../domain/demande.js';
import { aujourdhui } from '../../../domain/dates.js';
import { detailExport } from '../../../domain/instruction.js';
import type { Statut } from '../../../domain/statut.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { fichier, reponses } from '../../http.js';
import type { InstructionRepository } from '../instruction/repository.js';
import { exportCsv, exportXlsx } from './export.js';
import type { DemandesRepository } from './repository.js';
import type { DemandesService } from './service.js';
import { toComplete } from './vues.js';

/** The managers' routes; registered in a scope that refuses everyone else (see index.ts). */
export function routesGestion(deps: { repository: DemandesRepository; service: DemandesService; journal: InstructionRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, service, journal } = deps;
    // Each answer says how long the server took (W3C Server-Timing: the browser's developer tools show it), so that a
    // slow desk can be told from a slow network; bench/gestion.ts compares it with the same queries run directly.
    // Only to managers (a refusal has none): public answers give no precise timing to anyone.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (reply.statusCode < 400) reply.header('Server-Timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
      done(null, payload);
    });

    // Server-side search, sort, filter and pages (docs/produit.md « Liste des gestionnaires »).
    app.get('/logement', { schema: { querystring: listeQuerySchema, response: reponses(200, listeDemandesSchema) } }, async (request) =>
      repository.page({ ...request.query, suiviePar: (await compteDe(request))!.id }),
    );

    // The counts of the list's tabs (per status, and « Suivies par moi »).
    // Not under /logement/: a word of 6 letters or more there is a possible numéro unique.
    app.get('/compteurs', { schema: { response: reponses(200, z.object({ data: compteursSchema })) } }, async (request) => ({
      data: await repository.compteurs((await compteDe(request))!.id),
    }));

    // The map of every request, keyed by numéro unique (the original API's `GET /logement/all`, docs/api.md).
    app.get('/logement/all', { schema: { response: reponses(200, z.object({ data: z.record(z.string(), demandeCompleteSchema) })) } }, async () => {
      const rows = await repository.listAll();
      return { data: Object.fromEntries(rows.map((r) => [r.numeroUnique, toComplete(r, [])])) };
    });

    // The change answers how to undo it: within 10 s, before its e-mail leaves (docs/api.md).
    app.post(
      '/logement/update/status',
      { schema: { body: changementStatutSchema, response: reponses(200, z.object({ data: statutChangeSchema })) } },
      async (request) => {
        const actor = (await compteDe(request))!;
        const { logementId, newStatus, motif } = request.body;
        const { row, annulation } = await service.changerStatut(logementId, newStatus as Statut, actor.id, request.log, motif);
        return { data: { numeroUnique: row.numeroUnique, statutDeLaDemande: row.statutDeLaDemande as Statut, updatedAt: row.updatedAt, annulation } };
      },
    );

    app.post(
      '/logement/update/status/annuler',
      { schema: { body: annulationStatutSchema, response: reponses(200, z.object({ data: statutRestaureSchema })) } },
      async (request) => {
        const actor = (await compteDe(request))!;
        const row = await service.annuler(request.body.id, actor.id, request.log);
        return { data: { numeroUnique: row.numeroUnique, statutDeLaDemande: row.statutDeLaDemande as Statut, updatedAt: row.updatedAt } };
      },
    );

    // The filtered list as a file: CSV for French Excel, or an Excel workbook; the columns chosen.
    const exporter = (format: 'csv' | 'xlsx') =>
      app.get(`/logement/export.${format}`, { schema: { querystring: exportQuerySchema, response: fichier() } }, async (request, reply) => {
        const actor = (await compteDe(request))!;
        const { colonnes, ...query } = request.query;
        // Recorded with its format and its number of columns, without its filter: a search holds names.
        await journal.journaliser({ housingRequestId: null, acteurUserId: actor.id, action: 'export', detail: detailExport(format, colonnes.length), le: app.deps.now().toISOString() });
        // The day in Paris (an export at 00:30 on 1 January is named after 1 January).
        const day = aujourdhui(app.deps.now());
        const rows = repository.stream({ ...query, suiviePar: actor.id });
        return reply
          .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
          .header('Content-Disposition', `attachment; filename="demandes-logement-${day}.${format}"`)
          .header('Cache-Control', 'no-store')
          .send(format === 'csv' ? exportCsv(rows, colonnes, app.deps.db, request.log) : exportXlsx(rows, colonnes, app.deps.db, request.log));
      });
    exporter('csv');
    exporter('xlsx');
  };
}
