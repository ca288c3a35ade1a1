import { createRequire } from 'node:module';
import { PassThrough, type Readable } from 'node:stream';
import type { stringify as stringifyType } from 'csv-stringify';
import type ExcelJSType from 'exceljs';
import type { FastifyBaseLogger } from 'fastify';
import { CHAMPS_DEMANDE, valeurLue, type ChampLu, type DemandeComplete } from '../../../domain/demande.js';
import type { DemandeRow } from '../../db/schema.js';
import { toComplete } from './vues.js';

const require = createRequire(import.meta.url);

/**
 * Writes each request to `ecrire`, then ends; a failure on the way is logged and destroys `sortie` (the
 * download then ends in error rather than looking complete).
 */
function pomper(rows: AsyncIterable<DemandeRow>, sortie: NodeJS.WritableStream & { destroy(error?: Error): unknown }, ecrire: (d: DemandeComplete) => Promise<void>, fin: () => Promise<void>, log: FastifyBaseLogger): void {
  void (async () => {
    try {
      for await (const row of rows) await ecrire(toComplete(row, []));
      await fin();
    } catch (error) {
      log.error({ err: error }, "l’export a échoué en cours de route");
      sortie.destroy(error as Error);
    }
  })();
}

/**
 * The managers' CSV export, for French Excel: UTF-8 with BOM, semicolons, values as people read them
 * (dd/mm/yyyy, option labels, amounts in euros), the chosen columns. Rows stream from the database.
 */
export function exportCsv(rows: AsyncIterable<DemandeRow>, colonnes: readonly ChampLu[], log: FastifyBaseLogger): Readable {
  // csv-stringify loads with the first export.
  const { stringify } = require('csv-stringify') as { stringify: typeof stringifyType };
  const csv = stringify({
    bom: true,
    delimiter: ';',
    record_delimiter: 'windows',
    // A line break or a comma inside a field is quoted too (Excel reads bare \n as a new row).
    quoted_match: /[\r\n,]/u,
    // CSV injection: a cell starting with = + - @ would be read as a formula; a leading ' keeps it text.
    cast: { string: (value) => (/^[=+\-@\t\r]/u.test(value) ? `'${value}` : value) },
    header: true,
    columns: colonnes.map((champ) => CHAMPS_DEMANDE[champ].label),
  });
  pomper(
    rows,
    csv,
    async (demande) => {
      if (!csv.write(colonnes.map((champ) => valeurLue(champ, demande)))) await new Promise((resolve) => csv.once('drain', resolve));
    },
    async () => void csv.end(),
    log,
  );
  return csv;
}

/**
 * The same export as an Excel workbook (exceljs's streaming writer: each row leaves once written). Amounts and
 * the number of children are numbers; every other value is text as people read it (never a formula).
 */
export function exportXlsx(rows: AsyncIterable<DemandeRow>, colonnes: readonly ChampLu[], log: FastifyBaseLogger): Readable {
  // exceljs loads with the first workbook asked for.
  const ExcelJS = require('exceljs') as typeof ExcelJSType;
  const sortie = new PassThrough();
  const classeur = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sortie, useStyles: true, useSharedStrings: false });
  classeur.creator = 'Quartier Vivant';
  const feuille = classeur.addWorksheet('Demandes', { views: [{ state: 'frozen', ySplit: 1 }] });
  feuille.columns = colonnes.map((champ) => ({ header: CHAMPS_DEMANDE[champ].label, key: champ, width: Math.max(12, Math.min(40, CHAMPS_DEMANDE[champ].label.length + 4)) }));
  feuille.getRow(1).font = { bold: true };
  const nombre = (champ: ChampLu) => ['montant', 'enfants'].includes(CHAMPS_DEMANDE[champ].lecture);
  pomper(
    rows,
    sortie,
    async (demande) => {
      feuille.addRow(colonnes.map((champ) => (nombre(champ) && typeof demande[champ] === 'number' ? demande[champ] : valeurLue(champ, demande)))).commit();
      if (sortie.writableNeedDrain) await new Promise((resolve) => sortie.once('drain', resolve));
    },
    async () => {
      feuille.commit();
      await classeur.commit();
    },
    log,
  );
  return sortie;
}
