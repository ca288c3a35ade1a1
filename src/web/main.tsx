import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

function Accueil() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 640, margin: '3rem auto', padding: '0 1rem', lineHeight: 1.5 }}>
      <h1>Quartier Vivant</h1>
      <p>Le site des habitants du Jas de Bouffan (Aix-en-Provence) ouvre bientôt.</p>
      <p>Vous pourrez y déposer votre demande de logement social, suivre son avancement et envoyer vos documents.</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Accueil />
  </StrictMode>,
);
