import { BientotPage } from '../../components/BientotPage.js';

export function NouveauSignalementPage() {
  return <BientotPage title="Nouveau signalement technique" />;
}

export function SignalementPage() {
  return <BientotPage title="Suivi d'un signalement technique" />;
}

export function SignalementsPage() {
  return <BientotPage title="Tous les signalements techniques" />;
}
