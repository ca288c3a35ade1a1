import { formatTaille } from '../../../domain/documents.js';
import { PHOTO_COTE_MAX, PHOTO_TYPES, PHOTOS_MAX } from '../../../domain/signalements.js';

/** Below this size a photo already small enough (longest side) is sent as it is. */
const LEGERE_OCTETS = 1_000_000;
const QUALITE = 0.85;

const EXTENSIONS: Record<(typeof PHOTO_TYPES)[number], RegExp> = { 'image/jpeg': /\.jpe?g$/iu, 'image/png': /\.png$/iu };

/** Whether a chosen file may be a photo of a report: JPEG or PNG, by its type and its name (the server checks the content). */
export function estPhotoAcceptee(fichier: File): boolean {
  return PHOTO_TYPES.some((type) => fichier.type === type && EXTENSIONS[type].test(fichier.name));
}

/** What the form says before a photo is chosen. */
export function consignePhotos(maxOctets: number): string {
  return `JPEG ou PNG, ${PHOTOS_MAX} photos au plus, ${formatTaille(maxOctets)} chacune au plus.`;
}

/** Why a photo, even made smaller, is refused: too heavy. */
export function photoTropLourde(nom: string, octets: number, maxOctets: number): string {
  return `« ${nom} » est trop lourde (${formatTaille(octets)}) : ${formatTaille(maxOctets)} au plus.`;
}

/**
 * A photo made smaller on the device before it is sent, to spare a phone's data: its longest side brought to
 * PHOTO_COTE_MAX (what the server keeps anyway), turned upright by the browser, written as a JPEG (which also
 * leaves its EXIF position behind; the server removes every metadata in all cases). A photo already small, or a
 * browser that cannot do it, keeps the original.
 */
export async function reduirePhoto(fichier: File): Promise<File> {
  if (typeof createImageBitmap !== 'function' || typeof document === 'undefined') return fichier;
  try {
    const image = await createImageBitmap(fichier);
    const cote = Math.max(image.width, image.height);
    if (cote <= PHOTO_COTE_MAX && fichier.size <= LEGERE_OCTETS) {
      image.close();
      return fichier;
    }
    const echelle = Math.min(1, PHOTO_COTE_MAX / cote);
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(image.width * echelle);
    canvas.height = Math.round(image.height * echelle);
    const ctx = canvas.getContext('2d');
    if (!ctx) return fichier;
    // A PNG's transparency becomes white, as the server does.
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    image.close();
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', QUALITE));
    if (!blob || blob.size >= fichier.size) return fichier;
    return new File([blob], fichier.name.replace(/\.(png|jpe?g)$/iu, '') + '.jpg', { type: 'image/jpeg', lastModified: fichier.lastModified });
  } catch {
    return fichier;
  }
}
