// The local OpenID provider of the browser tests' "Connexion avec Google" (see test/oidc.ts).
import { startOidcProvider } from '../test/oidc.js';

const appUrl = process.env.APP_URL ?? 'http://127.0.0.1:3210';
const { issuer } = await startOidcProvider({
  port: Number(process.env.OIDC_PORT ?? 3211),
  clientId: 'quartier-vivant-e2e',
  clientSecret: 'secret-e2e',
  redirectUri: `${appUrl}/app/api/auth/callback/google`,
  name: 'Bernard Sophie',
  givenName: 'Sophie',
  familyName: 'Bernard',
});
process.stdout.write(`OpenID provider on ${issuer}\n`);
