import { createRequire } from 'node:module';
import type { stringify as stringifyType, Stringifier } from 'csv-stringify';
import type { FastifyBaseLogger } from 'fastify';
import { CHAMPS_DEMANDE, COLONNES_CSV, valeurLue } from '../../../domain/demande.js';
import type { DemandeRow } from '../../db/schema.js';
import { toComplete } from './vues.js';

/**
 * The managers' CSV export, for French Excel: UTF-8 with BOM, semicolons, values as people read them
 * (dd/mm/yyyy, option labels), the columns of COLONNES_CSV. Rows stream from the database.
 */
export function exportCsv(rows: AsyncIterable<DemandeRow>, log: FastifyBaseLogger): Stringifier {
  // csv-stringify loads with the first export.
  const { stringify } = createRequire(import.meta.url)('csv-stringify') as { stringify: typeof stringifyType };
  const csv = stringify({
    bom: true,
    delimiter: ';',
    record_delimiter: 'windows',
    // A line break or a comma inside a field is quoted too (Excel reads bare \n as a new row).
    quoted_match: /[\r\n,]/u,
    // CSV injection: a cell starting with = + - @ would be read as a formula; a leading ' keeps it text.
    cast: { string: (value) => (/^[=+\-@\t\r]/u.test(value) ? `'${value}` : value) },
    header: true,
    columns: COLONNES_CSV.map((champ) => CHAMPS_DEMANDE[champ].label),
  });
  void (async () => {
    try {
      for await (const row of rows) {
        const demande = toComplete(row, []);
        if (!csv.write(COLONNES_CSV.map((champ) => valeurLue(champ, demande)))) await new Promise((resolve) => csv.once('drain', resolve));
      }
      csv.end();
    } catch (error) {
      log.error({ err: error }, "l'export CSV a échoué en cours de route");
      csv.destroy(error as Error);
    }
  })();
  return csv;
}
