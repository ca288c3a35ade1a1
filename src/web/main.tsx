// Mantine's global styles; each component's own stylesheet comes with the module that uses it
// (scripts/vite-mantine-css.ts), so the first screen carries only the CSS of what it draws.
import '@mantine/core/styles/baseline.layer.css';
import '@mantine/core/styles/default-css-variables.layer.css';
import '@mantine/core/styles/global.layer.css';
import './app/focus.css';

/** Resolves once the browser has painted the page's content (or after a second at most). */
function premierAffichage(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => requestAnimationFrame(() => setTimeout(resolve, 0));
    const timer = setTimeout(done, 1000);
    try {
      const observer = new PerformanceObserver((list) => {
        if (!list.getEntries().some((e) => e.name === 'first-contentful-paint')) return;
        observer.disconnect();
        clearTimeout(timer);
        done();
      });
      observer.observe({ type: 'paint', buffered: true });
    } catch {
      /* no paint timing in this browser: the timer */
    }
  });
}

/**
 * The entry is this small module: a prerendered page (scripts/prerender.ts) is drawn first, then the app's
 * code is fetched and takes it over (start.tsx), so that the first paint waits for no script.
 */
async function main() {
  const root = document.getElementById('root');
  if (root?.hasChildNodes()) await premierAffichage();
  const { start } = await import('./start.js');
  await start();
}

void main();
