// The local tile server of the browser tests' maps (CARTE_TUILES_URL, playwright.config.ts): the tests talk only to
// loopback, never to the Géoplateforme. Every `/tuiles/{z}/{x}/{y}.png` answers one 256 × 256 PNG, a pale ground with
// a darker edge, so that a screenshot shows the tiles' grid; `/sante` says it is up; every tile asked is counted
// (`/compte`), so that a test can tell the map fetched its tiles here.
import http from 'node:http';
import zlib from 'node:zlib';

const TAILLE = 256;

const CRC = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(octets: Buffer): number {
  let c = 0xffffffff;
  for (const o of octets) c = CRC[(c ^ o) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function bloc(type: string, donnees: Buffer): Buffer {
  const longueur = Buffer.alloc(4);
  longueur.writeUInt32BE(donnees.length);
  const corps = Buffer.concat([Buffer.from(type, 'ascii'), donnees]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(corps));
  return Buffer.concat([longueur, corps, crc]);
}

/** One RGB tile: a pale beige, its last row and column grey (the grid). */
function tuile(): Buffer {
  const ligne = 1 + TAILLE * 3;
  const brut = Buffer.alloc(ligne * TAILLE);
  for (let y = 0; y < TAILLE; y++) {
    brut[y * ligne] = 0; // no filter
    for (let x = 0; x < TAILLE; x++) {
      const bord = x === TAILLE - 1 || y === TAILLE - 1;
      const [r, g, b] = bord ? [200, 200, 196] : [242, 239, 233];
      brut.set([r, g, b], y * ligne + 1 + x * 3);
    }
  }
  const entete = Buffer.alloc(13);
  entete.writeUInt32BE(TAILLE, 0);
  entete.writeUInt32BE(TAILLE, 4);
  entete.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter, no interlace
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bloc('IHDR', entete), bloc('IDAT', zlib.deflateSync(brut)), bloc('IEND', Buffer.alloc(0))]);
}

const PNG = tuile();
let servies = 0;
const port = Number(process.env.TUILES_PORT ?? 3212);

http
  .createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/sante') return void res.end('ok');
    if (url === '/compte') return void res.end(String(servies));
    if (/^\/tuiles\/\d+\/\d+\/\d+\.png$/u.test(url)) {
      servies += 1;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length, 'cache-control': 'no-store' });
      return void res.end(PNG);
    }
    res.writeHead(404).end();
  })
  .listen(port, '127.0.0.1', () => process.stdout.write(`Tile server on http://127.0.0.1:${port}/tuiles/{z}/{x}/{y}.png\n`));
