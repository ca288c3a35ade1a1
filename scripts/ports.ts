import net from 'node:net';

/** A free port of 127.0.0.1 (nobody listens on it once this answers): the kernel's choice, probed then let go. */
export function portLibre(): Promise<number> {
  return new Promise((resolve, reject) => {
    const sonde = net.createServer();
    sonde.once('error', reject);
    sonde.listen(0, '127.0.0.1', () => {
      const { port } = sonde.address() as net.AddressInfo;
      sonde.close(() => resolve(port));
    });
  });
}
