import net from 'node:net';

/** The usual port of a URL's scheme, when the URL names none. */
const PORTS: Record<string, number> = { 'redis:': 6379, 'postgres:': 5432, 'postgresql:': 5432 };

/**
 * A TCP relay on the loopback to `cible` (Redis's or the database's URL) that a test cuts and restores: the server
 * « goes away » and comes back without the real one being touched. `url()` is `cible` reached through the relay; the
 * relay keeps its port when it is restored.
 */
export async function relais(cible: URL) {
  const sockets = new Set<net.Socket>();
  let serveur: net.Server | null = null;
  let port = 0;
  const ouvrir = () =>
    new Promise<void>((resolve) => {
      serveur = net.createServer((client) => {
        const amont = net.connect(Number(cible.port || PORTS[cible.protocol]), cible.hostname);
        for (const s of [client, amont]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(amont).pipe(client);
      });
      serveur.listen(port, '127.0.0.1', () => {
        port = (serveur!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await ouvrir();
  return {
    url: () => {
      const url = new URL(cible);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    /** Ends every connection through it and stops listening (a no-op when already cut). */
    couper: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (serveur?.listening) serveur.close(() => resolve());
        else resolve();
      }),
    retablir: ouvrir,
  };
}
