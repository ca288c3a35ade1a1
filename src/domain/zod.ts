/**
 * The one place zod is configured: every schema of the domain imports `z` from here, so zod's own
 * messages (the ones we did not word ourselves) are French wherever a schema is used, server or web,
 * whichever chunk loads first.
 */
import { z } from 'zod';

z.config(z.locales.fr());

export { z };
