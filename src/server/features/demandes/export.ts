import { createRequire } from 'node:module';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import type { stringify as stringifyType } from 'csv-stringify';
import type ExcelJSType from 'exceljs';
import type { FastifyBaseLogger } from 'fastify';
import { ETATS_CORRECTION, type EtatCorrection } from '../../../domain/corrections.js';
import { formatJour } from '../../../domain/dates.js';
import { CHAMPS_DEMANDE, estColonneInstruction, labelColonne, valeurLue, type ColonneExport, type DemandeComplete } from '../../../domain/demande.js';
import type { Db } from '../../db/index.js';
import type { DemandeRow } from '../../db/schema.js';
import { etiquettesDesDemandes, nomsDesGestionnaires } from './export-gestion.js';
import { toComplete } from './vues.js';

const require = createRequire(import.meta.url);

/**
 * Requests read together for their labels and followers: 100,000 requests make 2,000 small queries, not 200,000.
 * Not more: the batch is kept until its last row is written (see repository.ts STREAM_LOT).
 */
export const LOT_EXPORT = 100;

/** One request as the export reads it: its fields, its row (the desk's columns), its labels' and follower's names. */
interface Ligne {
  demande: DemandeComplete;
  row: DemandeRow;
  etiquettes: readonly string[];
  suiviePar: string;
}

/** A column's value as people read it ('' when none): dates dd/mm/yyyy, labels « ; »-separated. */
function valeur(colonne: ColonneExport, l: Ligne): string {
  switch (colonne) {
    case 'valideJusqua':
      return l.row.valideJusqua ? formatJour(l.row.valideJusqua) : '';
    case 'correction':
      return l.row.correction !== null && Object.hasOwn(ETATS_CORRECTION, l.row.correction) ? ETATS_CORRECTION[l.row.correction as EtatCorrection] : '';
    case 'etiquettes':
      return l.etiquettes.join(' ; ');
    case 'suiviePar':
      return l.suiviePar;
    default:
      return valeurLue(colonne, l.demande);
  }
}

/** The download was abandoned (its client went away): the export stops where it is, nothing to report. */
class ExportAbandonne extends Error {}

/**
 * Waits until `flux` takes more, or is closed, or `sortie` (the download, which `flux` feeds) is closed: the client
 * went away, and the export stops there.
 */
async function place(flux: NodeJS.EventEmitter & { destroyed?: boolean }, sortie: NodeJS.EventEmitter & { destroyed?: boolean } = flux): Promise<void> {
  // Closed already: its 'close' has been and gone, nothing would end the wait.
  if (flux.destroyed || sortie.destroyed) throw new ExportAbandonne();
  await new Promise<void>((resolve) => {
    const suite = () => {
      flux.off('drain', suite);
      flux.off('close', suite);
      sortie.off('close', suite);
      resolve();
    };
    flux.on('drain', suite);
    flux.on('close', suite);
    sortie.on('close', suite);
  });
  if (flux.destroyed || sortie.destroyed) throw new ExportAbandonne();
}

/**
 * Writes each request to `ecrire`, then ends; a failure on the way is logged and destroys `sortie` (the
 * download then ends in error rather than looking complete). Requests go by batches of LOT_EXPORT: when
 * « Étiquettes » or « Suivie par » is chosen, one query reads the batch's labels, one its followers' names.
 */
function pomper(
  rows: AsyncIterable<DemandeRow>,
  colonnes: readonly ColonneExport[],
  db: Db,
  sortie: NodeJS.WritableStream & { destroy(error?: Error): unknown; destroyed?: boolean },
  ecrire: (l: Ligne) => Promise<void>,
  fin: () => Promise<void>,
  log: FastifyBaseLogger,
): void {
  const avecEtiquettes = colonnes.includes('etiquettes');
  const avecSuiveurs = colonnes.includes('suiviePar');
  const vider = async (lot: DemandeRow[]) => {
    const etiquettes = avecEtiquettes ? await etiquettesDesDemandes(db, lot.map((r) => r.id)) : new Map<string, string[]>();
    const suiveurs = avecSuiveurs ? await nomsDesGestionnaires(db, lot.flatMap((r) => (r.suiviePar ? [r.suiviePar] : []))) : new Map<string, string>();
    for (const row of lot) {
      await ecrire({ demande: toComplete(row, []), row, etiquettes: etiquettes.get(row.id) ?? [], suiviePar: (row.suiviePar && suiveurs.get(row.suiviePar)) || '' });
    }
    // A turn of the event loop between batches. On SQLite the rows come without any I/O wait, and a workbook's
    // compression (zlib, in the thread pool) never tells it to wait: without this turn the whole export ran in one
    // go, every other request waiting for its end (100,000 rows: 8.7 s) and the workbook piling up in memory.
    await setImmediate();
    // The client went away meanwhile: nothing more is read or written.
    if (sortie.destroyed) throw new ExportAbandonne();
  };
  void (async () => {
    try {
      let lot: DemandeRow[] = [];
      for await (const row of rows) {
        lot.push(row);
        if (lot.length >= LOT_EXPORT) {
          await vider(lot);
          lot = [];
        }
      }
      await vider(lot);
      await fin();
    } catch (error) {
      if (error instanceof ExportAbandonne) return;
      log.error({ err: error }, "l’export a échoué en cours de route");
      sortie.destroy(error as Error);
    }
  })();
}

/**
 * The managers' CSV export, for French Excel: UTF-8 with BOM, semicolons, values as people read them
 * (dd/mm/yyyy, option labels, amounts in euros), the chosen columns. Rows stream from the database.
 */
export function exportCsv(rows: AsyncIterable<DemandeRow>, colonnes: readonly ColonneExport[], db: Db, log: FastifyBaseLogger): Readable {
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
    columns: colonnes.map(labelColonne),
  });
  pomper(
    rows,
    colonnes,
    db,
    csv,
    async (ligne) => {
      if (!csv.write(colonnes.map((colonne) => valeur(colonne, ligne)))) await place(csv);
    },
    async () => void csv.end(),
    log,
  );
  return csv;
}

/**
 * The stream that feeds a sheet's XML to the zip's compression. exceljs writes the XML into it without heeding
 * write()'s answer (its StreamBuf), so rows made faster than zlib compresses them piled up there (100,000 rows:
 * +70 MB); the export waits on it as on the download. Found through exceljs 4's internals (the worksheet's
 * `stream`, its `pipes`): when they change, nothing is found and the export runs as before.
 */
function entreeDeCompression(feuille: unknown): EntreeDeCompression | undefined {
  const entree = (feuille as { stream?: { pipes?: unknown[] } }).stream?.pipes?.[0] as Partial<EntreeDeCompression> | undefined;
  return typeof entree?.on === 'function' && typeof entree.off === 'function' && entree._writableState ? (entree as EntreeDeCompression) : undefined;
}

/** A writable stream of readable-stream 2 (archiver's), which says it is full by `_writableState.needDrain`. */
type EntreeDeCompression = NodeJS.EventEmitter & { destroyed?: boolean; _writableState: { needDrain?: boolean } };

/**
 * The same export as an Excel workbook (exceljs's streaming writer: each row leaves once written). Amounts and
 * the number of children are numbers; every other value is text as people read it (never a formula).
 */
export function exportXlsx(rows: AsyncIterable<DemandeRow>, colonnes: readonly ColonneExport[], db: Db, log: FastifyBaseLogger): Readable {
  // exceljs loads with the first workbook asked for.
  const ExcelJS = require('exceljs') as typeof ExcelJSType;
  const sortie = new PassThrough();
  const classeur = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: sortie, useStyles: true, useSharedStrings: false });
  classeur.creator = 'Quartier Vivant';
  const feuille = classeur.addWorksheet('Demandes', { views: [{ state: 'frozen', ySplit: 1 }] });
  feuille.columns = colonnes.map((colonne) => ({ header: labelColonne(colonne), key: colonne, width: Math.max(12, Math.min(40, labelColonne(colonne).length + 4)) }));
  feuille.getRow(1).font = { bold: true };
  const nombre = (colonne: ColonneExport) => !estColonneInstruction(colonne) && ['montant', 'enfants'].includes(CHAMPS_DEMANDE[colonne].lecture);
  const compression = entreeDeCompression(feuille);
  pomper(
    rows,
    colonnes,
    db,
    sortie,
    async (ligne) => {
      feuille
        .addRow(colonnes.map((colonne) => (nombre(colonne) && typeof ligne.demande[colonne as keyof DemandeComplete] === 'number' ? ligne.demande[colonne as keyof DemandeComplete] : valeur(colonne, ligne))))
        .commit();
      if (compression?._writableState.needDrain) await place(compression, sortie);
      if (sortie.writableNeedDrain) await place(sortie);
    },
    async () => {
      feuille.commit();
      await classeur.commit();
    },
    log,
  );
  return sortie;
}
