// A local OpenID provider for the browser tests' "Connexion avec Google" (panva's oidc-provider,
// development interactions: any login, then a consent page). Loopback only.
import http from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT ?? 3211);
const appUrl = process.env.APP_URL ?? 'http://127.0.0.1:3210';
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'quartier-vivant-e2e',
      client_secret: 'secret-e2e',
      redirect_uris: [`${appUrl}/app/api/auth/callback/google`],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: `${sub}@example.org`, email_verified: true, name: 'Bernard Sophie', given_name: 'Sophie', family_name: 'Bernard' }),
  }),
  features: { devInteractions: { enabled: true } },
});

http.createServer(provider.callback()).listen(port, '127.0.0.1', () => {
  process.stdout.write(`OpenID provider on ${issuer}\n`);
});
