import { BientotPage } from '../../components/BientotPage.js';

export function SecuritePage() {
  return <BientotPage title="Sécurité" />;
}
